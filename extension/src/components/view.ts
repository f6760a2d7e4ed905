/**
 * `PipelineView`: the output of a `%%ascendcraft` cell, in the spirit of Compiler Explorer's
 * pass viewer. Top: the pass list and the actions (passlist.ts) beside the selected pass's
 * explanation (explain.ts). Then the pane toolbar (toolbar.ts) and three panes — the DSL draft
 * (dslpane.ts) | the selected step's diff, or the merge editor while editing (diffpane.ts) |
 * the final AscendC project (finalpane.ts) — every line coloured by its DSL line and
 * hover-linked across panes; in resizable columns or stacked (panes.ts). Last the dock:
 * full-width panels under the panes, the verdict first (verdict.ts; `dockPanel` adds more,
 * e.g. the profile timeline, timelinepanel.ts). The same view fills a main-area tab (tab.ts).
 *
 * This class holds the parts together: the model's lifecycle, the kernel link, the commands'
 * entry points and the linking of lines across panes. It renders Python's view model and sends
 * commands; nothing here decides a fact about the pipeline or whether an action is open.
 */
import { EditorView } from '@codemirror/view';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { IPipelineLink } from '../link';
import { relatives } from '../logic/colours';
import { Arrangement } from '../logic/layout';
import { PipelineModel } from '../model';
import { CommandIDs, IPipelinePayload, MIME_TYPE, SCHEMA_VERSION } from '../tokens';
import { CodePane, IPaneContext } from './codepane';
import { focusAll, revealLine, setWrap } from './codeview';
import { DiffPane } from './diffpane';
import { ILanguages, IViewContext, IViewServices, el } from './dom';
import { DslPane } from './dslpane';
import { renderExplain } from './explain';
import { FinalPane } from './finalpane';
import { renderHeader, renderMessages } from './header';
import { PaneGrid } from './panes';
import { PassList } from './passlist';
import { TimelinePanel } from './timelinepanel';
import { renderToolbar } from './toolbar';
import { renderVerdict } from './verdict';

export type { ILanguages, IViewServices };

/** Where a view outside a notebook cell (a main-area tab) gets its kernel and keeps its output. */
export interface IViewHost {
  /** The link of the notebook the session belongs to; null: read-only, saying `readOnly`. */
  link: IPipelineLink | null;
  readOnly: string;
  /** Store the session's new MIME bundle where the notebook keeps it (the cell's output). */
  persist(bundle: { [mime: string]: unknown }): void;
}

/** A tab at least this wide (px) puts the passes and the explanation beside the panes. */
const WIDE_TAB_PX = 900;

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
      this._invalidatePanes();
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
    this._timeline.dispose();
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
      this._diffPane.clearEdits();
      m.dispatch({ type: 'edit', step: step || m.state.selected || '', path });
    }
  }

  async saveEdit(): Promise<boolean> {
    const m = this._model;
    const editing = m?.state.editing;
    if (!m || !editing) {
      return false;
    }
    const ok = await m.edit(editing.step, this._diffPane.editedFiles(m));
    if (ok) {
      this._diffPane.clearEdits();
    }
    return ok;
  }

  cancelEdit(): void {
    this._diffPane.clearEdits();
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
    this._invalidatePanes();
    this._update();
  }

  protected onBeforeDetach(msg: Message): void {
    if (this._model) {
      this._diffPane.stashEditor(this._model);
    }
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

    const top = el('div', 'acl-top');
    top.append(this._passList.node, this._explain);
    this._grid = new PaneGrid(this._panes.map(p => p.root), this._services.prefs);
    this._grid.onArranged = () => this._context && renderToolbar(this._toolbar, this._context, this._grid.arrangement);
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

  /** This view as its parts see it (null before the first payload). */
  private get _context(): IViewContext | null {
    const model = this._model;
    if (!model) {
      return null;
    }
    return { model, services: this._services, exec: (command, args) => this._exec(command, args || {}) };
  }

  private _update(): void {
    const ctx = this._context;
    if (!ctx || this.isDisposed) {
      return;
    }
    const m = ctx.model;
    renderHeader(this._header, ctx, this.inTab);
    renderMessages(this._message, m);
    this._passList.render(ctx);
    renderExplain(this._explain, m, (step, path, line, dsl) => this._revealInDiff(step, path, line, dsl));
    renderToolbar(this._toolbar, ctx, this._grid.arrangement);
    renderVerdict(this._verdict, m, (path, line, dsl) => this._revealInFinal(path, line, dsl));
    this._timeline.render(m.timeline);
    if (this.isAttached) {
      const panes: IPaneContext = { model: m, langs: this._langs, wrap: this._wrap, hooks: this._hooks };
      for (const pane of this._panes) {
        pane.render(panes);
      }
      this._applyFocus();
    }
  }

  private _onPrefs(): void {
    setWrap(this._panes.flatMap(p => (p.view ? p.view.views : [])), this._wrap);
    if (this._context) {
      renderToolbar(this._toolbar, this._context, this._grid.arrangement);
    }
  }

  private _destroyCode(): void {
    for (const pane of this._panes) {
      pane.destroy();
    }
  }

  private _invalidatePanes(): void {
    for (const pane of this._panes) {
      pane.invalidate();
    }
  }

  private get _wrap(): boolean {
    return this._services.prefs.value.wrapLines;
  }

  // ------------------------------------------------------------------ linking lines
  private readonly _hooks = {
    hover: (dsl: number) => {
      if (dsl !== this._hover) {
        this._hover = dsl;
        this._applyFocus();
      }
    },
    pick: (dsl: number) => void this._exec(CommandIDs.focusDslLine, { line: dsl })
  };

  private _applyFocus(): void {
    const dsl = this._hover || this._model?.state.focusDsl || 0;
    const views: EditorView[] = this._panes.flatMap(p => p.linkedViews);
    focusAll(views, dsl);
  }

  /** Scroll every pane to the first line of DSL line `dsl`. */
  private _revealRelatives(dsl: number): void {
    const m = this._model;
    if (!m || !dsl) {
      return;
    }
    const reveal = (pane: CodePane, lines: readonly number[]) => {
      const first = relatives(lines, dsl)[0];
      if (pane.view && first) {
        revealLine(pane.view.main, first);
      }
    };
    reveal(this._dslPane, m.payload.dsl.dsl_lines);
    const step = m.state.selected;
    const after = step && m.state.files[step] ? m.body('after', m.state.files[step], step) : null;
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
    m.dispatch({ type: 'select', step });
    if (pass && path && !pass.files.some(f => f.path === path) && ran[ran.length - 1] === pass) {
      // The last pass's output is the final project: show the line there.
      this._revealInFinal(path, line, dsl);
      return;
    }
    if (path) {
      m.dispatch({ type: 'file', step, path });
    }
    this._diffPane.reveal(line);
    this._pin(dsl);
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
    this._finalPane.reveal(line);
    this._pin(dsl);
  }

  /** Pin DSL line `dsl` (when not 0 and not pinned already), then redraw. */
  private _pin(dsl: number): void {
    const m = this._model;
    if (m && dsl && dsl !== m.state.focusDsl) {
      m.dispatch({ type: 'focus', dsl });
    }
    this._update();
  }

  private _exec(command: string, args: { [key: string]: unknown }): Promise<unknown> {
    this._services.registry.use(this);
    return this._services.commands.execute(command, { session: this.session, ...args } as any);
  }

  private _model: PipelineModel | null = null;
  private _mimeModel: IRenderMime.IMimeModel | null = null;
  private _trusted = false;
  private _langs: ILanguages | null = null;
  private _hover = 0;
  private _wide: ResizeObserver | null = null;
  private readonly _header = el('div', 'acl-header');
  private readonly _message = el('div', 'acl-messages');
  private readonly _passList = new PassList(() => this._context);
  private readonly _explain = el('div', 'acl-explain');
  private readonly _toolbar = el('div', 'acl-toolbar', undefined, { role: 'toolbar', 'aria-label': 'code panes' });
  private readonly _dslPane = new DslPane();
  private readonly _diffPane = new DiffPane(command => void this._exec(command, {}));
  private readonly _finalPane = new FinalPane();
  private readonly _panes: CodePane[] = [this._dslPane, this._diffPane, this._finalPane];
  private _grid!: PaneGrid;
  private readonly _dock = el('div', 'acl-dock');
  private readonly _verdict = el('div', 'acl-verdict');
  private readonly _timeline = new TimelinePanel(
    () => this.dockPanel('timeline', 'Estimated pipe timeline'),
    this._dock,
    () => this.node.clientWidth
  );
}
