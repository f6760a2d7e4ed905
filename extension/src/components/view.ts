/**
 * `PipelineView`: the output of a `%%ascendcraft` cell, in the spirit of Compiler Explorer's
 * pass viewer. Top: the pass list (status dot, +N -M, time; up/down keys), the actions and the
 * selected pass's explanation. Then the pane toolbar (diff layout, line wrapping, pane layout)
 * and three panes — the DSL draft | the selected step's diff (CodeMirror merge view, side by
 * side or unified; the merge editor while editing) | the final AscendC project (a tab per
 * file) — every line coloured by its DSL line and hover-linked across panes; in resizable
 * columns or stacked (components/panes.ts). Last the dock: full-width panels under the panes,
 * the verdict with the emulator's findings linked to their lines first (`dockPanel` adds more,
 * e.g. a profile timeline). The same view fills a main-area tab (components/tab.ts).
 *
 * It renders the model and sends commands; nothing here decides a fact about the pipeline.
 */
import { LanguageSupport } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { CommandRegistry } from '@lumino/commands';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { IPipelineLink } from '../link';
import { dslPaneColours, lineColours, relatives } from '../logic/colours';
import { Arrangement, PaneLayout } from '../logic/layout';
import { formatSeconds, statLabel, visiblePasses } from '../logic/passes';
import { ActionName, linkExplanation, whyNot } from '../logic/state';
import { formatMicros, layoutTimeline, stepZoom } from '../logic/timeline';
import { PipelineModel } from '../model';
import { LayoutPrefs } from '../prefs';
import { CommandIDs, IBody, IPass, IPipelinePayload, MIME_TYPE, SCHEMA_VERSION } from '../tokens';
import {
  ICodeView,
  IPaneText,
  diffView,
  editState,
  editView,
  focusAll,
  revealLine,
  setWrap,
  textView
} from './codeview';
import { PaneGrid } from './panes';
import { ViewRegistry } from './registry';

export interface ILanguages {
  cpp: LanguageSupport | null;
  python: LanguageSupport | null;
}

/** What the plugin gives every view. */
export interface IViewServices {
  commands: CommandRegistry;
  registry: ViewRegistry<PipelineView>;
  /** The kernel link of the notebook holding `widget`, or null outside a notebook. */
  linkFor(widget: Widget): IPipelineLink | null;
  languages: Promise<ILanguages>;
  /** The layout preferences every view follows. */
  prefs: LayoutPrefs;
}

/** Where a view outside a notebook cell (a main-area tab) gets its kernel and keeps its output. */
export interface IViewHost {
  /** The link of the notebook the session belongs to; null: read-only, saying `readOnly`. */
  link: IPipelineLink | null;
  readOnly: string;
  /** Store the session's new MIME bundle where the notebook keeps it (the cell's output). */
  persist(bundle: { [mime: string]: unknown }): void;
}

const ACTIONS: { action: ActionName; command: string; label: string; primary?: boolean }[] = [
  { action: 'accept', command: CommandIDs.acceptStep, label: 'Accept' },
  { action: 'edit', command: CommandIDs.editStep, label: 'Edit' },
  { action: 'undo', command: CommandIDs.undoStep, label: 'Undo' },
  { action: 'regenerate', command: CommandIDs.regenerateStep, label: 'Regenerate' },
  { action: 'compile', command: CommandIDs.compile, label: 'Compile & verify', primary: true },
  { action: 'profile', command: CommandIDs.profile, label: 'Profile' }
];

const STATUS_WORDS: { [status: string]: string } = {
  pending: 'to review',
  accepted: 'accepted',
  edited: 'edited',
  failed: 'failed',
  unchanged: 'unchanged',
  'not-run': 'not run'
};

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
  attrs?: { [key: string]: string }
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) {
    node.className = cls;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    node.setAttribute(k, v);
  }
  return node;
}

function paneText(body: IBody, payload: IPipelinePayload, dsl = false): IPaneText {
  return {
    text: body.text,
    dslLines: body.dsl_lines,
    colours: dsl ? dslPaneColours(body.dsl_lines.length, payload) : lineColours(body.dsl_lines, payload)
  };
}

/** A tab at least this wide (px) puts the passes and the explanation beside the panes. */
const WIDE_TAB_PX = 900;

const EMPTY: IBody = { text: '', lines: 0, shown_lines: 0, truncated: false, omitted: false, dsl_lines: [] };

export class PipelineView extends Widget implements IRenderMime.IRenderer {
  /** `host`: given for a view of its own (a tab); a cell's view finds its notebook's link itself. */
  constructor(
    private readonly _options: Pick<IRenderMime.IRendererOptions, 'mimeType'>,
    private readonly _services: IViewServices,
    private readonly _host: IViewHost | null = null
  ) {
    super();
    this.addClass('acl-pipeline');
    if (_host) {
      this.addClass('acl-in-tab');
    }
    this.node.tabIndex = -1;
    this._build();
    _services.prefs.changed.connect(this._onPrefs, this);
    void _services.languages.then(langs => {
      this._langs = langs;
      this._keys = {};
      this._update();
    });
  }

  get model(): PipelineModel | null {
    return this._model;
  }

  get session(): string {
    return this._model ? this._model.session : '';
  }

  /** A view of its own (a main-area tab), not a cell's output. */
  get inTab(): boolean {
    return this._host !== null;
  }

  get trusted(): boolean {
    return this._trusted;
  }

  /** How the code panes are laid out now. */
  get arrangement(): Arrangement {
    return this._grid.arrangement;
  }

  /**
   * A full-width panel in the dock under the code panes (created on first use, then the same
   * one): the place for views of the session that need the whole width, e.g. a profile timeline.
   */
  dockPanel(id: string, title: string): HTMLElement {
    let panel = this._dock.querySelector<HTMLElement>(`:scope > section[data-panel='${CSS.escape(id)}']`);
    if (!panel) {
      panel = el('section', 'acl-dock-panel', undefined, { 'data-panel': id, 'aria-label': title });
      this._dock.append(panel);
    }
    return panel;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[this._options.mimeType || MIME_TYPE] as unknown as IPipelinePayload;
    if (!data || typeof data !== 'object' || data.version !== SCHEMA_VERSION) {
      this._showUnsupported(data);
      return;
    }
    this._trusted = model.trusted;
    this._mimeModel = model;
    if (this._model) {
      this._model.setPayload(data);
    } else {
      this._model = new PipelineModel(data);
      this._model.changed.connect(this._update, this);
      this._model.persist = bundle => this.persistBundle(bundle);
      this._services.registry.add(this);
      this._bind();
    }
    this._update();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._destroyCode();
    this._wide?.disconnect();
    this._timelineResize?.disconnect();
    this._grid.dispose();
    this._services.prefs.changed.disconnect(this._onPrefs, this);
    this._services.registry.remove(this);
    this._model?.dispose();
    super.dispose();
  }

  // ------------------------------------------------------------------ used by the commands
  select(step: string): void {
    this._model?.dispatch({ type: 'select', step });
  }

  move(delta: number): void {
    this._model?.dispatch({ type: 'move', delta });
  }

  toggleUnchanged(): void {
    this._model?.dispatch({ type: 'toggle-unchanged' });
  }

  toggleLayout(): void {
    this._model?.dispatch({ type: 'layout' });
  }

  focusDsl(line: number): void {
    this._model?.dispatch({ type: 'focus', dsl: line });
    this._revealRelatives(this._model?.state.focusDsl || 0);
  }

  startEdit(step?: string, path?: string): void {
    const m = this._model;
    if (m) {
      this._editStates.clear();
      m.dispatch({ type: 'edit', step: step || m.state.selected || '', path });
    }
  }

  async saveEdit(): Promise<boolean> {
    const m = this._model;
    const editing = m?.state.editing;
    if (!m || !editing) {
      return false;
    }
    this._stashEditor();
    const files: { [path: string]: string } = {};
    for (const [path, st] of this._editStates) {
      const original = this._editOriginals.get(path);
      const text = st.doc.toString();
      if (original !== undefined && text !== original) {
        files[path] = text;
      }
    }
    const ok = await m.edit(editing.step, files);
    if (ok) {
      this._editStates.clear();
    }
    return ok;
  }

  cancelEdit(): void {
    this._editStates.clear();
    this._model?.dispatch({ type: 'edit-end' });
  }

  /** Replace this output's data (the notebook keeps it when saved); renderModel follows. */
  persistBundle(bundle: { [mime: string]: unknown }): void {
    if (this._host) {
      this._host.persist(bundle);
      return;
    }
    const mm = this._mimeModel;
    if (!mm || !this._trusted || this.isDisposed) {
      return;
    }
    mm.setData({ data: { ...(mm.data as object), ...bundle } as ReadonlyPartialJSONObject });
  }

  // ------------------------------------------------------------------ lifecycle
  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this._bind();
    this._keys = {};
    this._update();
  }

  protected onBeforeDetach(msg: Message): void {
    this._stashEditor();
    this._destroyCode();
    super.onBeforeDetach(msg);
  }

  /** Connect to the notebook's kernel once attached (a saved or untrusted output stays read-only). */
  private _bind(): void {
    const m = this._model;
    if (!m || m.linked || !this.isAttached) {
      return;
    }
    if (!this._trusted) {
      m.readOnly('read-only: this output is not trusted (run the cell to review the pipeline)');
      return;
    }
    const link = this._host ? this._host.link : this._services.linkFor(this);
    if (link) {
      m.attachLink(link);
    } else {
      m.readOnly(this._host ? this._host.readOnly : 'read-only: not in a notebook with a kernel');
    }
  }

  private _showUnsupported(data: unknown): void {
    this.node.textContent = '';
    const version = data && typeof data === 'object' ? (data as { version?: unknown }).version : undefined;
    this.node.appendChild(
      el(
        'div',
        'acl-message acl-error',
        `This pipeline output uses schema version ${String(version)}; this extension reads version ${SCHEMA_VERSION}. ` +
          'Re-run the cell, or update AscendCraft Lab.'
      )
    );
  }

  // ------------------------------------------------------------------ DOM
  private _build(): void {
    const n = this.node;
    n.addEventListener('focusin', () => this._model && this._services.registry.use(this));
    n.addEventListener('mousedown', () => this._model && this._services.registry.use(this));
    // Keys typed here are ours: the notebook's command-mode shortcuts must not see them.
    n.addEventListener('keydown', event => event.stopPropagation());

    this._header = el('div', 'acl-header');
    this._message = el('div', 'acl-messages');
    const top = el('div', 'acl-top');
    const side = el('div', 'acl-sidebar');
    this._passes = el('ul', 'acl-passes', undefined, { role: 'listbox', tabindex: '0', 'aria-label': 'passes' });
    this._passes.addEventListener('keydown', event => this._onListKey(event));
    this._passes.addEventListener('click', event => {
      const li = (event.target as HTMLElement).closest('li[data-step]');
      if (li) {
        void this._exec(CommandIDs.selectStep, { step: li.getAttribute('data-step') });
        this._passes.focus();
      }
    });
    this._actions = el('div', 'acl-actions');
    side.append(this._passes, this._actions);
    this._explain = el('div', 'acl-explain');
    top.append(side, this._explain);

    this._toolbar = el('div', 'acl-toolbar', undefined, { role: 'toolbar', 'aria-label': 'code panes' });
    this._dslPane = this._pane('acl-pane-dsl');
    this._diffPane = this._pane('acl-pane-diff');
    this._finalPane = this._pane('acl-pane-final');
    this._grid = new PaneGrid([this._dslPane.root, this._diffPane.root, this._finalPane.root], this._services.prefs);
    this._grid.onArranged = () => this._model && this._renderToolbar(this._model);
    this._dock = el('div', 'acl-dock');
    this._verdict = el('div', 'acl-verdict');
    this._dock.append(this._verdict);
    const main = el('div', 'acl-main');
    main.append(this._toolbar, this._grid.node, this._dock);
    n.append(this._header, this._message, top, main);
    if (this._host) {
      // A tab wide enough keeps the passes, actions and explanation in a column of their own
      // beside the panes, each scrolling on its own: the controls stay in sight.
      this._wide = new ResizeObserver(entries => {
        const width = entries[entries.length - 1].contentRect.width;
        requestAnimationFrame(() => !this.isDisposed && this.toggleClass('acl-wide', width >= WIDE_TAB_PX));
      });
      this._wide.observe(n);
    }
  }

  private _pane(cls: string): IPane {
    const root = el('section', `acl-pane ${cls}`);
    const title = el('header', 'acl-pane-title');
    const tabs = el('div', 'acl-tabs', undefined, { role: 'tablist' });
    const bar = el('div', 'acl-bar');
    const code = el('div', 'acl-code');
    root.append(title, tabs, bar, code);
    return { root, title, tabs, bar, code, view: null };
  }

  private _update(): void {
    const m = this._model;
    if (!m || this.isDisposed) {
      return;
    }
    this._renderHeader(m);
    this._renderMessages(m);
    this._renderPasses(m);
    this._renderActions(m);
    this._renderExplain(m);
    this._renderToolbar(m);
    this._renderVerdict(m);
    this._renderTimeline(m);
    if (this.isAttached) {
      this._renderDsl(m);
      this._renderDiff(m);
      this._renderFinal(m);
      this._applyFocus();
    }
  }

  private _renderHeader(m: PipelineModel): void {
    const p = m.payload;
    const s = m.state;
    const h = this._header;
    h.textContent = '';
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
    box.addEventListener('change', () => void this._exec(CommandIDs.toggleUnchanged, {}));
    hide.append(box, ' hide unchanged');
    h.append(title, link, el('span', 'acl-spacer'), hide);
    if (!this._host) {
      const open = el('button', 'acl-tool acl-open-tab', 'Open in tab', {
        'data-command': CommandIDs.openInTab,
        title: this._services.commands.caption(CommandIDs.openInTab)
      });
      open.addEventListener('click', () => void this._exec(CommandIDs.openInTab, {}));
      h.append(open);
    }
  }

  /** Over the code panes: the diff layout, line wrapping and the pane layout. */
  private _renderToolbar(m: PipelineModel): void {
    const s = m.state;
    const prefs = this._services.prefs.value;
    const bar = this._toolbar;
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
      seg(diff, label, s.layout === value, { 'data-layout': value }, () => void this._exec(CommandIDs.toggleLayout, {}));
    }
    const panes = group('Panes', 'pane layout');
    const arranged = this._grid.arrangement;
    for (const [value, label] of [
      ['auto', 'Auto'],
      ['columns', 'Columns'],
      ['stacked', 'Stacked']
    ] as [PaneLayout, string][]) {
      const b = seg(panes, label, prefs.paneLayout === value, { 'data-pane-layout': value }, () =>
        void this._exec(CommandIDs.setPaneLayout, { layout: value })
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
      title: this._services.commands.caption(CommandIDs.toggleWrap)
    });
    wrap.addEventListener('click', () => void this._exec(CommandIDs.toggleWrap, {}));
    bar.append(wrap);
  }

  private _onPrefs(): void {
    setWrap(this._allViews(), this._services.prefs.value.wrapLines);
    if (this._model) {
      this._renderToolbar(this._model);
    }
  }

  private _allViews(): EditorView[] {
    const views: EditorView[] = [];
    for (const pane of [this._dslPane, this._diffPane, this._finalPane]) {
      if (pane.view) {
        views.push(...pane.view.views);
      }
    }
    return views;
  }

  private _renderMessages(m: PipelineModel): void {
    const s = m.state;
    const box = this._message;
    box.textContent = '';
    if (s.link !== 'live' && s.link !== 'connecting') {
      box.append(el('div', 'acl-message acl-readonly', linkExplanation(s)));
    }
    for (const note of m.payload.notes) {
      box.append(el('div', 'acl-message acl-note', note));
    }
    if (s.busy) {
      box.append(el('div', 'acl-message acl-progress', s.info || `${s.busy}…`, { role: 'status' }));
    } else if (s.info) {
      box.append(el('pre', 'acl-message acl-info', s.info, { role: 'status' }));
    }
    if (s.error) {
      const err = el('pre', 'acl-message acl-error', s.error, { role: 'alert' });
      box.append(err);
    }
  }

  private _renderPasses(m: PipelineModel): void {
    const s = m.state;
    const list = this._passes;
    list.textContent = '';
    const visible = visiblePasses(m.payload.passes, s.hideUnchanged);
    for (const p of visible) {
      const selected = p.name === s.selected;
      const li = el('li', 'acl-pass', undefined, {
        role: 'option',
        'data-step': p.name,
        'data-status': p.status,
        'aria-selected': String(selected),
        title: `${p.reason} — ${STATUS_WORDS[p.status] || p.status}`
      });
      li.append(
        el('span', 'acl-dot', undefined, { 'aria-hidden': 'true' }),
        el('span', 'acl-pass-name', `${p.number} ${p.name}`),
        el('span', 'acl-pass-stat', statLabel(p)),
        el('span', 'acl-pass-time', formatSeconds(p.seconds)),
        el('span', 'acl-pass-status', STATUS_WORDS[p.status] || p.status)
      );
      list.append(li);
    }
    const hidden = m.payload.passes.length - visible.length;
    if (hidden) {
      list.append(el('li', 'acl-pass-hidden', `${hidden} unchanged hidden`, { role: 'presentation' }));
    }
  }

  private _renderActions(m: PipelineModel): void {
    const s = m.state;
    const box = this._actions;
    box.textContent = '';
    for (const a of ACTIONS) {
      const why = whyNot(a.action, s, m.payload);
      const b = el('button', `acl-action${a.primary ? ' acl-primary' : ''}`, a.label, {
        'data-action': a.action,
        title: why || this._services.commands.caption(a.command)
      });
      b.disabled = !!why;
      if (s.busy === a.action || (a.action === 'edit' && s.busy === 'edit')) {
        b.classList.add('acl-busy');
      }
      b.addEventListener('click', () => {
        const args: { [k: string]: string } = { session: m.session };
        if (a.action !== 'compile' && a.action !== 'profile' && s.selected) {
          args.step = s.selected;
        }
        void this._exec(a.command, args);
      });
      box.append(b);
    }
  }

  private _renderExplain(m: PipelineModel): void {
    const box = this._explain;
    box.textContent = '';
    const p = this._selectedPass(m);
    if (!p) {
      return;
    }
    box.append(el('h3', 'acl-explain-title', `Pass ${p.number} · ${p.name} — ${p.reason}`));
    for (const para of p.explain.split(/\n\s*\n/)) {
      if (para.trim()) {
        box.append(el('p', 'acl-explain-text', para.trim()));
      }
    }
    const meta = [`${STATUS_WORDS[p.status] || p.status}`, statLabel(p), `${p.engine} engine`, formatSeconds(p.seconds)];
    box.append(el('div', 'acl-explain-meta', meta.filter(Boolean).join(' · ')));
    const r = p.report;
    if (r) {
      const facts = [
        r.engine,
        r.model && `model ${r.model}`,
        r.attempts !== undefined && `${r.attempts} attempt${r.attempts === 1 ? '' : 's'}`,
        r.best_round !== undefined && `best round ${r.best_round}`,
        r.tokens_in !== undefined && `${r.tokens_in} tokens in, ${r.tokens_out ?? 0} out`,
        r.requests !== undefined && `${r.requests} requests (${r.cached_calls ?? 0} cached)`,
        r.stopped && `stopped: ${r.stopped}`
      ];
      box.append(el('div', 'acl-explain-meta acl-report', facts.filter(Boolean).join(' · ')));
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
      box.append(this._tiling(m.payload.tiling));
    }
    for (const f of p.findings) {
      const item = el('pre', `acl-finding acl-${f.severity}`, f.text || f.message, {
        title: `show ${f.path}:${f.line}`,
        'data-kind': f.kind
      });
      item.addEventListener('click', () => this._revealInDiff(p.name, f.path, f.line, f.dsl_line));
      box.append(item);
    }
    for (const c of p.conflicts) {
      const item = el(
        'div',
        'acl-conflict',
        `conflict in ${c.path}:${c.line}: your edit and the regenerated text overlap — both are kept between markers; edit this step to resolve it`
      );
      item.addEventListener('click', () => this._revealInDiff(p.name, c.path, c.line, 0));
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

  private _tiling(t: NonNullable<IPipelinePayload['tiling']>): HTMLElement {
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

  /**
   * The last Profile's pipe timelines (ESTIMATED) in a dock panel: an SVG with a row per pipe of
   * each block shown, zoomed with the buttons or Ctrl + wheel, scrolled sideways in its box.
   */
  private _renderTimeline(m: PipelineModel): void {
    const t = m.timeline;
    if (!t || !t.blocks.length) {
      return;
    }
    const panel = this.dockPanel('timeline', 'Estimated pipe timeline');
    // Drawn for the dock's width: redrawn when the zoom, the timeline or that width changes.
    const width = Math.max(400, (this._dock.clientWidth || this.node.clientWidth || 1000) - 16);
    const key = `${this._timelineZoom}|${width}`;
    if (panel.dataset.drawn === key && this._timelineShown === t) {
      return;
    }
    if (!this._timelineResize && typeof ResizeObserver !== 'undefined') {
      this._timelineResize = new ResizeObserver(() => this._model && this._renderTimeline(this._model));
      this._timelineResize.observe(this._dock);
    }
    this._timelineShown = t;
    panel.dataset.drawn = key;
    panel.textContent = '';
    const bar = el('div', 'acl-timeline-bar', undefined, { role: 'toolbar', 'aria-label': 'timeline zoom' });
    bar.append(el('span', 'acl-timeline-title', `ESTIMATED pipe timeline of block${t.blocks.length > 1 ? 's' : ''} ` +
      `${t.blocks.map(b => b.label).join(', ')} (0 .. ${formatMicros(t.end)}; pipe model, not a measurement)`));
    const zoom = (z: number) => {
      this._timelineZoom = z;
      this._renderTimeline(m);
    };
    for (const [label, title, next] of [
      ['-', 'zoom out', () => stepZoom(this._timelineZoom, -1)],
      ['+', 'zoom in', () => stepZoom(this._timelineZoom, 1)],
      ['Fit', 'the whole run in the view', () => 1]
    ] as [string, string, () => number][]) {
      const b = el('button', 'acl-tool acl-timeline-zoom', label, { type: 'button', title, 'aria-label': title });
      b.addEventListener('click', () => zoom(next()));
      bar.append(b);
    }
    bar.append(el('span', 'acl-timeline-level', `${this._timelineZoom}x`));
    const box = el('div', 'acl-timeline-box');
    const geo = layoutTimeline(t, width, this._timelineZoom);
    const NS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(NS, 'svg');
    const attrs = (node: Element, a: { [k: string]: string | number }) => {
      for (const [k, v] of Object.entries(a)) {
        node.setAttribute(k, String(v));
      }
      return node;
    };
    attrs(svg, { width: geo.width, height: geo.height, class: 'acl-timeline', role: 'img',
      'aria-label': 'ESTIMATED pipe timeline' });
    geo.ticks.forEach((tick, i) => {
      const last = i === geo.ticks.length - 1;    // the end's label ends at the end, inside the drawing
      const label = attrs(document.createElementNS(NS, 'text'), { x: last ? tick.x - 2 : tick.x + 2, y: 12,
        class: 'acl-timeline-tick', 'text-anchor': last ? 'end' : 'start' });
      label.textContent = formatMicros(tick.t);
      svg.append(attrs(document.createElementNS(NS, 'line'), { x1: tick.x, x2: tick.x, y1: 14, y2: geo.height,
        class: 'acl-timeline-grid' }), label);
    });
    for (const row of geo.rows) {
      const g = attrs(document.createElementNS(NS, 'g'), { class: 'acl-timeline-row', 'data-block': row.block,
        'data-pipe': row.pipe });
      const name = attrs(document.createElementNS(NS, 'text'), { x: 4, y: row.y + 13, class: 'acl-timeline-label' });
      name.textContent = `block ${row.block} ${row.pipe}`;
      g.append(name);
      for (const box of row.boxes) {
        const r = attrs(document.createElementNS(NS, 'rect'), { x: box.x.toFixed(2), y: row.y + 3,
          width: box.width.toFixed(2), height: 12, class: 'acl-timeline-span' });
        const tip = document.createElementNS(NS, 'title');
        tip.textContent = box.title;
        r.append(tip);
        g.append(r);
      }
      svg.append(g);
    }
    box.append(svg);
    box.addEventListener('wheel', (event: WheelEvent) => {
      if (!event.ctrlKey) {
        return;       // a plain wheel scrolls the page; Ctrl + wheel zooms
      }
      event.preventDefault();
      zoom(stepZoom(this._timelineZoom, event.deltaY < 0 ? 1 : -1));
    }, { passive: false });
    panel.append(bar, box);
  }

  private _renderVerdict(m: PipelineModel): void {
    const box = this._verdict;
    box.textContent = '';
    const v = m.payload.verdict;
    if (!v) {
      box.setAttribute('data-state', 'none');
      box.append(
        el(
          'div',
          'acl-verdict-line',
          m.payload.ready
            ? 'Every step is reviewed: Compile & verify builds the project on the emulator and compares it with PyTorch.'
            : 'Not compiled yet: accept or edit every step, then Compile & verify.'
        )
      );
      return;
    }
    box.setAttribute('data-state', v.correct ? 'correct' : 'wrong');
    const line = el('div', 'acl-verdict-line');
    line.append(el('span', 'acl-verdict-mark', v.correct ? '✓ verified' : '✗ not verified'), ' ', v.message);
    box.append(line);
    if (!v.current) {
      box.append(el('div', 'acl-message acl-note', 'stale: the steps changed since this run — compile again'));
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
        li.addEventListener('click', () => this._revealInFinal(f.file || '', f.line || 0, f.dsl_line || 0));
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

  // ------------------------------------------------------------------ code panes
  private _renderDsl(m: PipelineModel): void {
    const pane = this._dslPane;
    const body = m.payload.dsl;
    const key = [body, !!this._langs];
    if (this._same('dsl', key)) {
      return;
    }
    pane.title.textContent = '';
    pane.title.append(el('span', undefined, 'DSL draft'), el('span', 'acl-path', m.payload.dsl.path));
    this._mount(pane, code =>
      textView(code, paneText(body, m.payload, true), this._langs?.python || null, this._hooks(), false, this._wrap)
    );
    this._truncation(pane, body, () => m.showAll('dsl', m.payload.dsl.path));
  }

  private _renderDiff(m: PipelineModel): void {
    const pane = this._diffPane;
    const s = m.state;
    const p = this._selectedPass(m);
    const path = p ? s.files[p.name] : '';
    const editing = s.editing && p && s.editing.step === p.name ? s.editing : null;
    const before = p && path ? m.body('before', path, p.name) : null;
    const after = p && path ? m.body('after', path, p.name) : null;
    const key = [p?.name, p?.status, path, s.layout, before, after, !!editing, editing?.path, !!this._langs];
    if (this._same('diff', key)) {
      return;
    }
    this._stashEditor();
    pane.title.textContent = '';
    pane.tabs.textContent = '';
    pane.bar.textContent = '';
    if (!p) {
      this._mountMessage(pane, 'No pass selected.');
      return;
    }
    pane.title.append(el('span', undefined, `Pass ${p.number} · ${p.name}`), el('span', 'acl-path', statLabel(p)));
    for (const f of p.files) {
      const tab = el('button', 'acl-tab', f.path.split('/').pop() || f.path, {
        role: 'tab',
        title: `${f.path}: ${f.change}, +${f.added} -${f.removed}`,
        'data-path': f.path,
        'aria-selected': String(f.path === path)
      });
      tab.append(el('span', 'acl-tab-stat', ` +${f.added} -${f.removed}`));
      tab.addEventListener('click', () => m.dispatch({ type: 'file', step: p.name, path: f.path }));
      pane.tabs.append(tab);
    }
    if (!p.files.length) {
      this._mountMessage(pane, p.status === 'not-run' ? 'This pass has not run.' : 'This pass changed no file.');
      return;
    }
    if (editing) {
      this._renderEditor(m, p, editing.path);
      return;
    }
    if (before === undefined || after === undefined) {
      this._mountMessage(pane, 'loading the step from the kernel…');
      return;
    }
    const b = before || EMPTY;
    const a = after || EMPTY;
    const change = p.files.find(f => f.path === path)?.change;
    if ((b.omitted || a.omitted) && s.link !== 'live') {
      this._mountMessage(
        pane,
        `This step's text was left out of the saved output to keep it small. Open the session folder ` +
          `(${m.payload.session.folder}/stages/) or run the notebook to see it.`
      );
      return;
    }
    const lang = this._langs?.cpp || null;
    if (change === 'added' || change === 'removed') {
      // A new (or deleted) file has nothing to compare with: show it whole.
      const whole = change === 'added' ? a : b;
      pane.bar.append(el('span', `acl-change acl-change-${change}`, `${change} by this pass`));
      this._mount(pane, code => textView(code, paneText(whole, m.payload), lang, this._hooks(), true, this._wrap));
    } else {
      this._mount(pane, code =>
        diffView(code, paneText(b, m.payload), paneText(a, m.payload), s.layout, lang, this._hooks(), this._wrap)
      );
    }
    this._truncation(pane, a.truncated ? a : b, () => {
      m.showAll('before', path, p.name);
      m.showAll('after', path, p.name);
    });
    this._consumeReveal('diff');
  }

  private _renderEditor(m: PipelineModel, p: IPass, path: string): void {
    const pane = this._diffPane;
    const bar = pane.bar;
    bar.append(
      el(
        'span',
        'acl-edit-hint',
        `Editing pass ${p.number} (${p.name}) · ${path}. Each change has Accept / Reject (reject reverts it to the previous step); type to change anything. Later steps are re-derived and merged.`
      )
    );
    const save = el('button', 'acl-action acl-primary acl-save-edit', 'Save edit', { 'data-action': 'save-edit' });
    save.addEventListener('click', () => void this._exec(CommandIDs.saveEdit, { session: m.session }));
    const cancel = el('button', 'acl-action acl-cancel-edit', 'Cancel', { 'data-action': 'cancel-edit' });
    cancel.addEventListener('click', () => void this._exec(CommandIDs.cancelEdit, { session: m.session }));
    save.disabled = !!m.state.busy;
    bar.append(save, cancel);
    const stashed = this._editStates.get(path);
    if (stashed) {
      this._mountEditor(pane, stashed);
      return;
    }
    this._mountMessage(pane, 'loading the whole step for editing…');
    const token = (this._editToken = {});
    void Promise.all([m.fullBody('before', path, p.name), m.fullBody('after', path, p.name)]).then(([before, after]) => {
      if (token !== this._editToken || !m.state.editing || m.state.editing.path !== path) {
        return;
      }
      if (!after || after.truncated || after.omitted) {
        this._mountMessage(
          pane,
          `${path} is too large to edit here: edit ${m.payload.session.folder}/stages/ in the session folder instead.`
        );
        return;
      }
      this._editOriginals.set(path, after.text);
      const st = editState(before ? before.text : '', after.text, this._langs?.cpp || null, this._wrap);
      this._editStates.set(path, st);
      this._mountEditor(pane, st);
    });
  }

  private _renderFinal(m: PipelineModel): void {
    const pane = this._finalPane;
    const s = m.state;
    const files = m.payload.final ? m.payload.final.files : [];
    const path = s.finalFile || '';
    const body = path ? m.body('final', path) : null;
    const key = [files.length, path, body, !!this._langs];
    if (this._same('final', key)) {
      return;
    }
    pane.title.textContent = '';
    pane.tabs.textContent = '';
    pane.bar.textContent = '';
    pane.title.append(el('span', undefined, 'Final AscendC'), el('span', 'acl-path', m.payload.session.folder + '/ascendc'));
    for (const f of files) {
      const tab = el('button', 'acl-tab', f.path.split('/').pop() || f.path, {
        role: 'tab',
        title: f.path,
        'data-path': f.path,
        'aria-selected': String(f.path === path)
      });
      tab.addEventListener('click', () => m.dispatch({ type: 'final-file', path: f.path }));
      pane.tabs.append(tab);
    }
    if (!files.length) {
      this._mountMessage(pane, 'The project is complete after pass 4 (this session stops earlier).');
      return;
    }
    if (body === undefined) {
      this._mountMessage(pane, 'loading…');
      return;
    }
    if (!body || (body.omitted && s.link !== 'live')) {
      this._mountMessage(pane, `Left out of the saved output: see ${m.payload.session.folder}/ascendc/${path}.`);
      return;
    }
    const lang = path.endsWith('.txt') ? null : this._langs?.cpp || null;
    this._mount(pane, code => textView(code, paneText(body, m.payload), lang, this._hooks(), true, this._wrap));
    this._truncation(pane, body, () => m.showAll('final', path));
    this._consumeReveal('final');
  }

  private _truncation(pane: IPane, body: IBody, showAll: () => void): void {
    if (!body.truncated) {
      return;
    }
    const note = el('div', 'acl-truncated', `showing ${body.shown_lines} of ${body.lines} lines `);
    if (this._model?.state.link === 'live') {
      const more = el('button', 'acl-link-button', 'show all');
      more.addEventListener('click', showAll);
      note.append(more);
    }
    pane.bar.append(note);
  }

  private _mount(pane: IPane, make: (parent: HTMLElement) => ICodeView): void {
    pane.view?.destroy();
    pane.view = null;
    this._editor = pane === this._diffPane ? null : this._editor;
    pane.code.textContent = '';
    const host = el('div', 'acl-cm');
    pane.code.append(host);
    pane.view = make(host);
  }

  private _mountEditor(pane: IPane, state: EditorState): void {
    pane.view?.destroy();
    pane.code.textContent = '';
    const host = el('div', 'acl-cm acl-editing', undefined, { 'data-lm-suppress-shortcuts': 'true' });
    pane.code.append(host);
    const ed = editView(host, state);
    setWrap([ed.view], this._wrap); // a stashed state keeps the wrapping it had
    this._editor = { view: ed.view, path: this._model?.state.editing?.path || '' };
    pane.view = { views: [ed.view], main: ed.view, destroy: ed.destroy };
  }

  private _mountMessage(pane: IPane, text: string): void {
    pane.view?.destroy();
    pane.view = null;
    if (pane === this._diffPane) {
      this._editor = null;
    }
    pane.code.textContent = '';
    pane.code.append(el('div', 'acl-placeholder', text));
  }

  /** Keep the editor's state (text, history, chunk decisions) when its pane is redrawn. */
  private _stashEditor(): void {
    if (this._editor && this._model?.state.editing) {
      this._editStates.set(this._editor.path, this._editor.view.state);
    }
  }

  private _destroyCode(): void {
    for (const pane of [this._dslPane, this._diffPane, this._finalPane]) {
      if (pane) {
        pane.view?.destroy();
        pane.view = null;
      }
    }
    this._editor = null;
    this._keys = {};
  }

  private _same(slot: string, key: unknown[]): boolean {
    const old = this._keys[slot];
    if (old && old.length === key.length && old.every((v, i) => v === key[i])) {
      return true;
    }
    this._keys[slot] = key;
    return false;
  }

  // ------------------------------------------------------------------ linking lines
  private _hooks() {
    return {
      hover: (dsl: number) => {
        if (dsl !== this._hover) {
          this._hover = dsl;
          this._applyFocus();
        }
      },
      pick: (dsl: number) => void this._exec(CommandIDs.focusDslLine, { session: this.session, line: dsl })
    };
  }

  private _applyFocus(): void {
    const dsl = this._hover || this._model?.state.focusDsl || 0;
    const views: EditorView[] = [];
    for (const pane of [this._dslPane, this._diffPane, this._finalPane]) {
      if (pane.view && !pane.code.querySelector('.acl-editing')) {
        views.push(...pane.view.views);
      }
    }
    focusAll(views, dsl);
  }

  private get _wrap(): boolean {
    return this._services.prefs.value.wrapLines;
  }

  /** Scroll every pane to the first line of DSL line `dsl`. */
  private _revealRelatives(dsl: number): void {
    const m = this._model;
    if (!m || !dsl) {
      return;
    }
    const reveal = (pane: IPane, lines: readonly number[]) => {
      const first = relatives(lines, dsl)[0];
      if (pane.view && first) {
        revealLine(pane.view.main, first);
      }
    };
    reveal(this._dslPane, m.payload.dsl.dsl_lines);
    const p = this._selectedPass(m);
    const after = p && m.state.files[p.name] ? m.body('after', m.state.files[p.name], p.name) : null;
    if (after && !m.state.editing) {
      reveal(this._diffPane, after.dsl_lines);
    }
    const final = m.state.finalFile ? m.body('final', m.state.finalFile) : null;
    if (final) {
      reveal(this._finalPane, final.dsl_lines);
    }
  }

  private _revealInDiff(step: string, path: string, line: number, dsl: number): void {
    const m = this._model;
    if (!m) {
      return;
    }
    const pass = m.payload.passes.find(p => p.name === step);
    const ran = m.payload.passes.filter(p => p.status !== 'not-run');
    if (pass && path && !pass.files.some(f => f.path === path) && ran[ran.length - 1] === pass) {
      // The last pass's output is the final project: show the line there.
      m.dispatch({ type: 'select', step });
      this._revealInFinal(path, line, dsl);
      return;
    }
    m.dispatch({ type: 'select', step });
    if (path) {
      m.dispatch({ type: 'file', step, path });
    }
    this._reveal = { pane: 'diff', line };
    this._keys.diff = [];
    if (dsl && dsl !== m.state.focusDsl) {
      m.dispatch({ type: 'focus', dsl });
    }
    this._update();
  }

  private _revealInFinal(path: string, line: number, dsl: number): void {
    const m = this._model;
    if (!m) {
      return;
    }
    const files = m.payload.final?.files.map(f => f.path) || [];
    const match = files.find(f => f === path || f.endsWith('/' + path) || path.endsWith('/' + f));
    if (match) {
      m.dispatch({ type: 'final-file', path: match });
    }
    this._reveal = { pane: 'final', line };
    this._keys.final = [];
    if (dsl && dsl !== m.state.focusDsl) {
      m.dispatch({ type: 'focus', dsl });
    }
    this._update();
  }

  private _consumeReveal(pane: 'diff' | 'final'): void {
    const r = this._reveal;
    const target = pane === 'diff' ? this._diffPane : this._finalPane;
    if (r && r.pane === pane && target.view && r.line > 0) {
      this._reveal = null;
      revealLine(target.view.main, r.line);
    }
  }

  // ------------------------------------------------------------------ helpers
  private _selectedPass(m: PipelineModel): IPass | null {
    return m.payload.passes.find(p => p.name === m.state.selected) || null;
  }

  private _onListKey(event: KeyboardEvent): void {
    const moves: { [key: string]: string } = { ArrowDown: CommandIDs.nextStep, ArrowUp: CommandIDs.previousStep };
    const command = moves[event.key];
    if (command) {
      event.preventDefault();
      void this._exec(command, { session: this.session });
    }
  }

  private _exec(command: string, args: { [key: string]: unknown }): Promise<unknown> {
    this._services.registry.use(this);
    return this._services.commands.execute(command, { session: this.session, ...args } as any);
  }

  private _model: PipelineModel | null = null;
  private _mimeModel: IRenderMime.IMimeModel | null = null;
  private _trusted = false;
  private _langs: ILanguages | null = null;
  private _keys: { [slot: string]: unknown[] } = {};
  private _hover = 0;
  private _reveal: { pane: 'diff' | 'final'; line: number } | null = null;
  private _editor: { view: EditorView; path: string } | null = null;
  private _editStates = new Map<string, EditorState>();
  private _editOriginals = new Map<string, string>();
  private _editToken: object = {};
  private _header!: HTMLElement;
  private _message!: HTMLElement;
  private _passes!: HTMLUListElement;
  private _actions!: HTMLElement;
  private _explain!: HTMLElement;
  private _toolbar!: HTMLElement;
  private _grid!: PaneGrid;
  private _dock!: HTMLElement;
  private _timelineZoom = 1;
  private _timelineShown: object | null = null;
  private _timelineResize: ResizeObserver | null = null;
  private _wide: ResizeObserver | null = null;
  private _verdict!: HTMLElement;
  private _dslPane!: IPane;
  private _diffPane!: IPane;
  private _finalPane!: IPane;
}

interface IPane {
  root: HTMLElement;
  title: HTMLElement;
  tabs: HTMLElement;
  bar: HTMLElement;
  code: HTMLElement;
  view: ICodeView | null;
}

