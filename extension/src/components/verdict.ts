/**
 * The verdict, first in the dock under the panes: the last compile & verify (verified or not,
 * the errors, the emulator's findings linked to their lines, the details), or before any run
 * the view model's status line — where the pipeline stands and what to do next.
 */
import { formatSeconds } from '../logic/passes';
import { PipelineModel } from '../model';
import { el } from './dom';

/** Show `line` of the final project's `path` (and pin DSL line `dsl` when not 0). */
export type RevealInFinal = (path: string, line: number, dsl: number) => void;

export function renderVerdict(box: HTMLElement, m: PipelineModel, reveal: RevealInFinal): void {
  box.textContent = '';
  const v = m.payload.verdict;
  const status = m.payload.status;
  if (!v) {
    box.setAttribute('data-state', 'none');
    box.append(el('div', 'acl-verdict-line acl-status-line', status.text, { 'data-status': status.state }));
    return;
  }
  box.setAttribute('data-state', v.correct ? 'correct' : 'wrong');
  const line = el('div', 'acl-verdict-line');
  line.append(el('span', 'acl-verdict-mark', v.correct ? '✓ verified' : '✗ not verified'), ' ', v.message);
  box.append(line);
  if (!v.current) {
    // Stale: the view model's status line says so, and what to do now.
    box.append(el('div', 'acl-message acl-note acl-status-line', status.text, { 'data-status': status.state }));
  }
  const facts = [
    `${v.backend} · ${v.soc}`,
    v.max_abs_err !== null ? `max abs err ${v.max_abs_err.toExponential(2)}` : '',
    v.max_rel_err !== null ? `max rel err ${v.max_rel_err.toPrecision(3)}` : '',
    typeof v.timings.verify_s === 'number' ? `took ${formatSeconds(v.timings.verify_s as number)}` : ''
  ];
  box.append(el('div', 'acl-verdict-facts', facts.filter(Boolean).join(' · ')));
  if (v.findings.length) {
    const list = el('ul', 'acl-run-findings');
    for (const f of v.findings) {
      const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '';
      const li = el(
        'li',
        'acl-run-finding',
        `${f.kind || 'finding'}: ${f.message || ''}${where ? ` — ${where}` : ''}${f.dsl_line ? ` (DSL line ${f.dsl_line})` : ''}`
      );
      li.addEventListener('click', () => reveal(f.file || '', f.line || 0, f.dsl_line || 0));
      list.append(li);
    }
    box.append(list);
  }
  if (v.detail) {
    const d = el('details', 'acl-verdict-detail');
    d.append(el('summary', undefined, 'details'), el('pre', undefined, v.detail));
    box.append(d);
  }
  const rest = v.summary.startsWith(v.message) ? v.summary.slice(v.message.length).trim() : v.summary.trim();
  if (rest) {
    box.append(el('pre', 'acl-verdict-summary', rest));
  }
}
