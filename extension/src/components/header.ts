/**
 * The top of the view: the header (session, SoC, engine, the link to the kernel, "hide
 * unchanged", "Open in tab") and the message area (read-only reason, session notes, a request's
 * progress, its result or error).
 */
import { linkExplanation } from '../logic/state';
import { PipelineModel } from '../model';
import { CommandIDs } from '../tokens';
import { IViewContext, el } from './dom';

export function renderHeader(node: HTMLElement, ctx: IViewContext, inTab: boolean): void {
  const m = ctx.model;
  const p = m.payload;
  const s = m.state;
  node.textContent = '';
  const title = el('span', 'acl-title');
  title.append(el('strong', undefined, p.session.name));
  title.append(` · ${p.session.soc} · ${p.session.engine} engine`);
  if (p.session.kernel !== p.session.name) {
    title.append(` · @kernel ${p.session.kernel}`);
  }
  const link = el('span', 'acl-link', s.link === 'live' ? 'live' : s.link === 'connecting' ? 'connecting…' : 'read-only', {
    'data-link': s.link,
    title: s.link === 'live' ? 'connected to the kernel: actions change the session folder' : linkExplanation(s)
  });
  const hide = el('label', 'acl-toggle');
  const box = el('input', 'acl-hide-unchanged', undefined, { type: 'checkbox' });
  box.checked = s.hideUnchanged;
  box.addEventListener('change', () => void ctx.exec(CommandIDs.toggleUnchanged));
  hide.append(box, ' hide unchanged');
  node.append(title, link, el('span', 'acl-spacer'), hide);
  if (!inTab) {
    const open = el('button', 'acl-tool acl-open-tab', 'Open in tab', {
      'data-command': CommandIDs.openInTab,
      title: ctx.services.commands.caption(CommandIDs.openInTab)
    });
    open.addEventListener('click', () => void ctx.exec(CommandIDs.openInTab));
    node.append(open);
  }
}

export function renderMessages(node: HTMLElement, m: PipelineModel): void {
  const s = m.state;
  node.textContent = '';
  const draftError = m.payload.draft_error;
  if (draftError) {
    // The cell's draft did not lower: its diagnostic (the line, with carets) inside the view, whose
    // panes still show the session as it was, the review kept.
    node.append(
      el('pre', 'acl-message acl-error acl-draft-error', draftError.text, {
        role: 'alert',
        'data-line': String(draftError.line)
      })
    );
  }
  if (s.link !== 'live' && s.link !== 'connecting') {
    node.append(el('div', 'acl-message acl-readonly', linkExplanation(s)));
  }
  for (const note of m.payload.notes) {
    node.append(el('div', 'acl-message acl-note', note));
  }
  if (s.busy) {
    node.append(el('div', 'acl-message acl-progress', s.info || `${s.busy}…`, { role: 'status' }));
  } else if (s.info) {
    node.append(el('pre', 'acl-message acl-info', s.info, { role: 'status' }));
  }
  if (s.error) {
    node.append(el('pre', 'acl-message acl-error', s.error, { role: 'alert' }));
  }
}
