/**
 * The step pane: the selected pass's change to one file (a tab per file it changed) as a merge
 * view, side by side or unified, or the whole file when the pass added or removed it; while
 * editing, the merge editor over the step's whole text (per-chunk accept / reject, free typing),
 * whose state survives redraws until the edit is saved or cancelled.
 */
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

import { statLabel } from '../logic/passes';
import { PipelineModel } from '../model';
import { CommandIDs, IPass } from '../tokens';
import { CodePane, EMPTY, IPaneContext, paneText } from './codepane';
import { diffView, editState, editView, setWrap, textView } from './codeview';
import { el } from './dom';

export class DiffPane extends CodePane {
  /** `exec`: runs a command on the view's session (Save edit, Cancel). */
  constructor(private readonly _exec: (command: string) => void) {
    super('acl-pane-diff');
  }

  get linkedViews(): EditorView[] {
    return this._editor ? [] : super.linkedViews;
  }

  render(ctx: IPaneContext): void {
    const m = ctx.model;
    const s = m.state;
    const p = m.payload.passes.find(x => x.name === s.selected) || null;
    const path = p ? s.files[p.name] : '';
    const editing = s.editing && p && s.editing.step === p.name ? s.editing : null;
    const before = p && path ? m.body('before', path, p.name) : null;
    const after = p && path ? m.body('after', path, p.name) : null;
    if (this.same([p?.name, p?.status, path, s.layout, before, after, !!editing, editing?.path, !!ctx.langs])) {
      return;
    }
    this.stashEditor(m);
    this.clear();
    if (!p) {
      this.mountMessage('No pass selected.');
      return;
    }
    this.title.append(el('span', undefined, `Pass ${p.number} · ${p.name}`), el('span', 'acl-path', statLabel(p)));
    for (const f of p.files) {
      const tab = this.tab(f.path, f.path === path, `${f.path}: ${f.change}, +${f.added} -${f.removed}`, () =>
        m.dispatch({ type: 'file', step: p.name, path: f.path })
      );
      tab.append(el('span', 'acl-tab-stat', ` +${f.added} -${f.removed}`));
    }
    if (!p.files.length) {
      this.mountMessage(p.status === 'not-run' ? 'This pass has not run.' : 'This pass changed no file.');
      return;
    }
    if (editing) {
      this._renderEditor(ctx, p, editing.path);
      return;
    }
    if (before === undefined || after === undefined) {
      this.mountMessage('loading the step from the kernel…');
      return;
    }
    const b = before || EMPTY;
    const a = after || EMPTY;
    const change = p.files.find(f => f.path === path)?.change;
    if ((b.omitted || a.omitted) && s.link !== 'live') {
      this.mountMessage(
        `This step's text was left out of the saved output to keep it small. Open the session folder ` +
          `(${m.payload.session.folder}/stages/) or run the notebook to see it.`
      );
      return;
    }
    const lang = ctx.langs?.cpp || null;
    if (change === 'added' || change === 'removed') {
      // A new (or deleted) file has nothing to compare with: show it whole.
      const whole = change === 'added' ? a : b;
      this.bar.append(el('span', `acl-change acl-change-${change}`, `${change} by this pass`));
      this.mount(code => textView(code, paneText(whole, m.payload), lang, ctx.hooks, true, ctx.wrap));
    } else {
      this.mount(code =>
        diffView(code, paneText(b, m.payload), paneText(a, m.payload), s.layout, lang, ctx.hooks, ctx.wrap)
      );
    }
    this.truncation(a.truncated ? a : b, s.link === 'live', () => {
      m.showAll('before', path, p.name);
      m.showAll('after', path, p.name);
    });
  }

  // ------------------------------------------------------------------ the edit
  /** The edited files whose text differs from the step's: what Save sends. */
  editedFiles(m: PipelineModel): { [path: string]: string } {
    this.stashEditor(m);
    const files: { [path: string]: string } = {};
    for (const [path, st] of this._editStates) {
      const original = this._editOriginals.get(path);
      const text = st.doc.toString();
      if (original !== undefined && text !== original) {
        files[path] = text;
      }
    }
    return files;
  }

  /** Drop every editor state (a new edit starts, or the edit was saved or cancelled). */
  clearEdits(): void {
    this._editStates.clear();
  }

  /** Keep the editor's state (text, history, chunk decisions) when its pane is redrawn. */
  stashEditor(m: PipelineModel): void {
    if (this._editor && m.state.editing) {
      this._editStates.set(this._editor.path, this._editor.view.state);
    }
  }

  protected mount(make: Parameters<CodePane['mount']>[0]): void {
    this._editor = null;
    super.mount(make);
  }

  protected mountMessage(text: string): void {
    this._editor = null;
    super.mountMessage(text);
  }

  destroy(): void {
    this._editor = null;
    super.destroy();
  }

  private _renderEditor(ctx: IPaneContext, p: IPass, path: string): void {
    const m = ctx.model;
    this.bar.append(
      el(
        'span',
        'acl-edit-hint',
        `Editing pass ${p.number} (${p.name}) · ${path}. Each change has Accept / Reject (reject reverts it to the previous step); type to change anything. Later steps are re-derived and merged.`
      )
    );
    const save = el('button', 'acl-action acl-primary acl-save-edit', 'Save edit', { 'data-action': 'save-edit' });
    save.addEventListener('click', () => this._exec(CommandIDs.saveEdit));
    const cancel = el('button', 'acl-action acl-cancel-edit', 'Cancel', { 'data-action': 'cancel-edit' });
    cancel.addEventListener('click', () => this._exec(CommandIDs.cancelEdit));
    save.disabled = !!m.state.busy;
    this.bar.append(save, cancel);
    const stashed = this._editStates.get(path);
    if (stashed) {
      this._mountEditor(stashed, path, ctx.wrap);
      return;
    }
    this.mountMessage('loading the whole step for editing…');
    const token = (this._editToken = {});
    void Promise.all([m.fullBody('before', path, p.name), m.fullBody('after', path, p.name)]).then(([before, after]) => {
      if (token !== this._editToken || !m.state.editing || m.state.editing.path !== path) {
        return;
      }
      if (!after || after.truncated || after.omitted) {
        this.mountMessage(
          `${path} is too large to edit here: edit ${m.payload.session.folder}/stages/ in the session folder instead.`
        );
        return;
      }
      this._editOriginals.set(path, after.text);
      const st = editState(before ? before.text : '', after.text, ctx.langs?.cpp || null, ctx.wrap);
      this._editStates.set(path, st);
      this._mountEditor(st, path, ctx.wrap);
    });
  }

  private _mountEditor(state: EditorState, path: string, wrap: boolean): void {
    this.view?.destroy();
    this.code.textContent = '';
    const host = el('div', 'acl-cm acl-editing', undefined, { 'data-lm-suppress-shortcuts': 'true' });
    this.code.append(host);
    const ed = editView(host, state);
    setWrap([ed.view], wrap); // a stashed state keeps the wrapping it had
    this._editor = { view: ed.view, path };
    this.view = { views: [ed.view], main: ed.view, destroy: ed.destroy };
  }

  private _editor: { view: EditorView; path: string } | null = null;
  private _editStates = new Map<string, EditorState>();
  private _editOriginals = new Map<string, string>();
  private _editToken: object = {};
}
