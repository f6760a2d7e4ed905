/** The final AscendC pane: the project after pass 4, a tab per file (the kernel source first). */
import { CodePane, IPaneContext, paneText } from './codepane';
import { textView } from './codeview';
import { el } from './dom';

export class FinalPane extends CodePane {
  constructor() {
    super('acl-pane-final');
  }

  render(ctx: IPaneContext): void {
    const m = ctx.model;
    const s = m.state;
    const files = m.payload.final ? m.payload.final.files : [];
    const path = s.finalFile || '';
    const body = path ? m.body('final', path) : null;
    if (this.same([files.length, path, body, !!ctx.langs])) {
      return;
    }
    this.clear();
    this.title.append(el('span', undefined, 'Final AscendC'), el('span', 'acl-path', m.payload.session.folder + '/ascendc'));
    for (const f of files) {
      this.tab(f.path, f.path === path, f.path, () => m.dispatch({ type: 'final-file', path: f.path }));
    }
    if (!files.length) {
      this.mountMessage('The project is complete after pass 4 (this session stops earlier).');
      return;
    }
    if (body === undefined) {
      this.mountMessage('loading…');
      return;
    }
    if (!body || (body.omitted && s.link !== 'live')) {
      this.mountMessage(`Left out of the saved output: see ${m.payload.session.folder}/ascendc/${path}.`);
      return;
    }
    const lang = path.endsWith('.txt') ? null : ctx.langs?.cpp || null;
    this.mount(code => textView(code, paneText(body, m.payload), lang, ctx.hooks, true, ctx.wrap));
    this.truncation(body, s.link === 'live', () => m.showAll('final', path));
  }
}
