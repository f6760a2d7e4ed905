/** The DSL draft pane: the draft with a line per DSL line, coloured when it produced C++. */
import { CodePane, IPaneContext, paneText } from './codepane';
import { textView } from './codeview';
import { el } from './dom';

export class DslPane extends CodePane {
  constructor() {
    super('acl-pane-dsl');
  }

  render(ctx: IPaneContext): void {
    const m = ctx.model;
    const body = m.payload.dsl;
    if (this.same([body, !!ctx.langs])) {
      return;
    }
    this.clear();
    this.title.append(el('span', undefined, 'DSL draft'), el('span', 'acl-path', body.path));
    this.mount(code =>
      textView(code, paneText(body, m.payload, true), ctx.langs?.python || null, ctx.hooks, false, ctx.wrap)
    );
    this.truncation(body, m.state.link === 'live', () => m.showAll('dsl', body.path));
  }
}
