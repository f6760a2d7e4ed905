/**
 * Beside the pass list: what the selected pass did and why (for newcomers), its engine's
 * report, the files it changed, the host pass's tiling, and its findings, conflicts and notes —
 * a finding or a conflict shows its line in the diff pane when clicked.
 */
import { formatSeconds, statLabel } from '../logic/passes';
import { PipelineModel } from '../model';
import { IPass, IPipelinePayload } from '../tokens';
import { el } from './dom';

/** Show `line` of `path` in step `step` (and pin DSL line `dsl` when not 0). */
export type RevealInDiff = (step: string, path: string, line: number, dsl: number) => void;

export function renderExplain(box: HTMLElement, m: PipelineModel, reveal: RevealInDiff): void {
  box.textContent = '';
  const p = m.payload.passes.find(x => x.name === m.state.selected);
  if (!p) {
    return;
  }
  box.append(el('h3', 'acl-explain-title', `Pass ${p.number} · ${p.name} — ${p.reason}`));
  for (const para of p.explain.split(/\n\s*\n/)) {
    if (para.trim()) {
      box.append(el('p', 'acl-explain-text', para.trim()));
    }
  }
  const meta = [p.label, statLabel(p), `${p.engine} engine`, formatSeconds(p.seconds)];
  box.append(el('div', 'acl-explain-meta', meta.filter(Boolean).join(' · ')));
  const report = engineReport(p);
  if (report) {
    box.append(report);
  }
  if (p.files.length) {
    const files = el('ul', 'acl-files', undefined, { 'aria-label': 'files this pass changed' });
    for (const f of p.files) {
      const li = el('li', 'acl-file', undefined, { 'data-path': f.path, title: `show ${f.path}` });
      li.append(
        el('span', `acl-change acl-change-${f.change}`, f.change),
        el('code', undefined, f.path),
        el('span', 'acl-pass-stat', ` +${f.added} -${f.removed}`)
      );
      li.addEventListener('click', () => m.dispatch({ type: 'file', step: p.name, path: f.path }));
      files.append(li);
    }
    box.append(files);
  }
  if (p.name === 'host' && m.payload.tiling) {
    box.append(tiling(m.payload.tiling));
  }
  for (const f of p.findings) {
    const item = el('pre', `acl-finding acl-${f.severity}`, f.text || f.message, {
      title: `show ${f.path}:${f.line}`,
      'data-kind': f.kind
    });
    item.addEventListener('click', () => reveal(p.name, f.path, f.line, f.dsl_line));
    box.append(item);
  }
  for (const c of p.conflicts) {
    const item = el(
      'div',
      'acl-conflict',
      `conflict in ${c.path}:${c.line}: your edit and the regenerated text overlap — both are kept between markers; edit this step to resolve it`
    );
    item.addEventListener('click', () => reveal(p.name, c.path, c.line, 0));
    box.append(item);
  }
  for (const note of p.notes) {
    box.append(el('div', 'acl-message acl-note', note));
  }
  box.append(
    el(
      'div',
      'acl-hint',
      '↑ ↓ move between passes · hover a line to see the lines of its DSL line in every pane, click to pin them · ' +
        'Edit opens the step in a merge editor: accept or reject each change, or type your own'
    )
  );
}

/** How an engine that reports on its work (the LLM engine) made this step. */
function engineReport(p: IPass): HTMLElement | null {
  const r = p.report;
  if (!r) {
    return null;
  }
  const facts = [
    r.engine,
    r.model && `model ${r.model}`,
    r.attempts !== undefined && `${r.attempts} attempt${r.attempts === 1 ? '' : 's'}`,
    r.best_round !== undefined && `best round ${r.best_round}`,
    r.tokens_in !== undefined && `${r.tokens_in} tokens in, ${r.tokens_out ?? 0} out`,
    r.requests !== undefined && `${r.requests} requests (${r.cached_calls ?? 0} cached)`,
    r.stopped && `stopped: ${r.stopped}`
  ];
  return el('div', 'acl-explain-meta acl-report', facts.filter(Boolean).join(' · '));
}

function tiling(t: NonNullable<IPipelinePayload['tiling']>): HTMLElement {
  const box = el('details', 'acl-tiling');
  const launch = Object.entries(t.launch || {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
  box.append(el('summary', undefined, `tiling for the reference's shapes: ${launch} — UB ${t.total ?? '?'} of ${t.budget ?? '?'} bytes`));
  const table = el('table');
  const head = el('tr');
  const buffers = t.buffers || [];
  const keys = buffers.length ? Object.keys(buffers[0]) : [];
  for (const k of keys) {
    head.append(el('th', undefined, k));
  }
  table.append(head);
  for (const b of buffers) {
    const row = el('tr');
    for (const k of keys) {
      row.append(el('td', undefined, String(b[k])));
    }
    table.append(row);
  }
  box.append(table);
  if (t.alternatives && t.alternatives.length) {
    // the alternatives and, after a ranking, which candidate won by the estimate and by how much
    box.append(el('pre', 'acl-tiling-why', t.alternatives.join('\n')));
  }
  return box;
}
