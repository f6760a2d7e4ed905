/**
 * Over the code panes: the diff layout (side by side or unified, per view), the pane layout
 * (auto, columns, stacked) and line wrapping (user preferences shared by every view).
 */
import { Arrangement, PaneLayout } from '../logic/layout';
import { CommandIDs } from '../tokens';
import { IViewContext, el } from './dom';

export function renderToolbar(bar: HTMLElement, ctx: IViewContext, arranged: Arrangement): void {
  const s = ctx.model.state;
  const prefs = ctx.services.prefs.value;
  bar.textContent = '';
  const group = (label: string, aria: string) => {
    const g = el('span', 'acl-group', undefined, { role: 'group', 'aria-label': aria });
    g.append(el('span', 'acl-group-label', label));
    bar.append(g);
    return g;
  };
  const seg = (parent: HTMLElement, label: string, pressed: boolean, attrs: { [k: string]: string }, act: () => void) => {
    const b = el('button', 'acl-seg', label, { ...attrs, 'aria-pressed': String(pressed) });
    b.addEventListener('click', () => !pressed && act());
    parent.append(b);
    return b;
  };
  const diff = group('Diff', 'diff layout');
  for (const [value, label] of [
    ['split', 'Side by side'],
    ['unified', 'Unified']
  ]) {
    seg(diff, label, s.layout === value, { 'data-layout': value }, () => void ctx.exec(CommandIDs.toggleLayout));
  }
  const panes = group('Panes', 'pane layout');
  for (const [value, label] of [
    ['auto', 'Auto'],
    ['columns', 'Columns'],
    ['stacked', 'Stacked']
  ] as [PaneLayout, string][]) {
    const b = seg(panes, label, prefs.paneLayout === value, { 'data-pane-layout': value }, () =>
      void ctx.exec(CommandIDs.setPaneLayout, { layout: value })
    );
    b.title =
      value === 'auto'
        ? `columns when the view is at least ${prefs.stackBelow} px wide, else stacked (now: ${arranged})`
        : value === 'columns'
          ? 'side by side; drag the lines between the panes to resize them'
          : 'one above the other, full width';
  }
  const wrap = el('button', 'acl-seg acl-wrap', 'Wrap lines', {
    'data-command': CommandIDs.toggleWrap,
    'aria-pressed': String(prefs.wrapLines),
    title: ctx.services.commands.caption(CommandIDs.toggleWrap)
  });
  wrap.addEventListener('click', () => void ctx.exec(CommandIDs.toggleWrap));
  bar.append(wrap);
}
