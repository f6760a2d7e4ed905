/**
 * `PipelineModel`: what one pipeline view shows — the latest payload of its session, the view
 * state (logic/state.ts), and the pass bodies fetched so far — and the actions, each one comm
 * request to the kernel's `LabSession`. It never computes a fact about the pipeline: every
 * status, diff, source map and verdict arrives in a payload from Python.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { IPipelineLink } from './link';
import { IViewState, ViewEvent, initialState, reduce } from './logic/state';
import { IBody, IPipelinePayload, IReply, IRequest, ITimeline, LinkStatus, Side } from './tokens';

export class PipelineModel implements IDisposable {
  constructor(payload: IPipelinePayload) {
    this._payload = payload;
    this._state = initialState(payload, 'read-only');
  }

  /** Bind to the notebook's kernel link: from now on actions go to the kernel. */
  attachLink(link: IPipelineLink): void {
    if (this._link) {
      return;
    }
    this._link = link;
    this.dispatch({ type: 'link', state: link.status, reason: link.reason });
    link.statusChanged.connect(this._onLinkStatus, this);
    link.payloadChanged.connect(this._onPayload, this);
    link.connected.connect(this._refresh, this);
    if (link.status === 'live') {
      void this._refresh();
    }
    link.connect();
  }

  /** Stay read-only, saying why (untrusted output, not in a notebook, ...). */
  readOnly(reason: string): void {
    if (!this._link) {
      this.dispatch({ type: 'link', state: 'read-only', reason });
    }
  }

  get linked(): boolean {
    return this._link !== null;
  }

  /** The kernel link actions go through (null: read-only). */
  get link(): IPipelineLink | null {
    return this._link;
  }

  get payload(): IPipelinePayload {
    return this._payload;
  }

  get state(): IViewState {
    return this._state;
  }

  get session(): string {
    return this._payload.session.folder;
  }

  /** The pipe timelines of the last Profile (ESTIMATED), or null before one. */
  get timeline(): ITimeline | null {
    return this._timeline;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispatch(event: ViewEvent): void {
    const next = reduce(this._state, event, this._payload);
    if (next !== this._state) {
      this._state = next;
      this._changed.emit();
    }
  }

  /** A new payload (the output was re-rendered with new data, or the kernel sent one). */
  setPayload(payload: IPipelinePayload): void {
    this._payload = payload;
    this._bodies.clear();
    this.dispatch({ type: 'payload', payload });
  }

  /**
   * A body to show: from the payload, or fetched (then cached) when the payload left it out.
   * `undefined` while it loads; `null` when the file does not exist on that side or cannot be had.
   */
  body(side: Side, path: string, step?: string): IBody | null | undefined {
    const inline = this._inlineBody(side, path, step);
    if (inline === null) {
      return null;
    }
    const key = `${side}|${step || ''}|${path}`;
    if (this._bodies.has(key)) {
      return this._bodies.get(key);
    }
    if (inline && !inline.omitted) {
      return inline;
    }
    if (this._state.link !== 'live') {
      return inline; // omitted and no kernel to ask: the pane says where the text is
    }
    this._fetch(key, { action: 'fetch_body', session: this.session, side, path, step }, inline);
    return undefined;
  }

  /** The whole body (the cap lifted up to the kernel's hard limit), e.g. before editing it. */
  async fullBody(side: Side, path: string, step?: string): Promise<IBody | null> {
    const shown = this.body(side, path, step);
    if (shown && !shown.truncated && !shown.omitted) {
      return shown;
    }
    if (!this._link || this._state.link !== 'live') {
      return shown || null;
    }
    const reply = await this._link.request({ action: 'fetch_body', session: this.session, side, path, step, full: true });
    if (!reply.ok || !reply.body) {
      this.dispatch({ type: 'reply', ok: false, error: reply.error });
      return null;
    }
    const body = reply.body.missing ? null : reply.body;
    this._bodies.set(`${side}|${step || ''}|${path}`, body);
    this._changed.emit();
    return body;
  }

  /** Show every line of a capped body (asks the kernel). */
  showAll(side: Side, path: string, step?: string): void {
    void this.fullBody(side, path, step);
  }

  // ------------------------------------------------------------------ actions (comm requests)
  accept(step: string): Promise<boolean> {
    return this._run('accept', { action: 'accept', session: this.session, step });
  }

  edit(step: string, files: { [path: string]: string }): Promise<boolean> {
    if (!Object.keys(files).length) {
      // Nothing changed in the editor: reviewing it was accepting it.
      return this._run('edit', { action: 'accept', session: this.session, step }, 'no change: accepted as generated');
    }
    return this._run('edit', { action: 'edit', session: this.session, step, files });
  }

  undo(step: string): Promise<boolean> {
    return this._run('undo', { action: 'undo', session: this.session, step });
  }

  regenerate(step: string): Promise<boolean> {
    return this._run('regenerate', { action: 'regenerate', session: this.session, step });
  }

  compile(backend = 'emulator'): Promise<boolean> {
    return this._run('compile', { action: 'compile', session: this.session, backend });
  }

  profile(): Promise<boolean> {
    return this._run('profile', { action: 'profile', session: this.session });
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    Signal.clearData(this);
  }

  private async _run(busy: string, req: IRequest, okInfo?: string): Promise<boolean> {
    if (!this._link || this._state.busy) {
      return false;
    }
    this.dispatch({ type: 'request', action: busy });
    const reply: IReply = await this._link.request(req, text => this.dispatch({ type: 'progress', text }));
    if (this._disposed) {
      return reply.ok;
    }
    if (reply.ok && reply.timeline) {
      this._timeline = reply.timeline;
    }
    // The payload itself arrives through the link's payloadChanged (every view of the session).
    this.dispatch({ type: 'reply', ok: reply.ok, error: reply.error, info: reply.profile || okInfo });
    if (reply.ok && req.action !== 'profile') {
      void this._persist();
    }
    return reply.ok;
  }

  /** Store the session's new MIME bundle in the cell output, so a saved notebook shows it. */
  private async _persist(): Promise<void> {
    if (!this._link || !this.persist) {
      return;
    }
    const reply = await this._link.request({ action: 'bundle', session: this.session });
    if (reply.ok && reply.bundle && !this._disposed && this.persist) {
      this.persist(reply.bundle);
    }
  }

  /** Set by the view: writes a MIME bundle into the output this model renders. */
  persist: ((bundle: { [mime: string]: unknown }) => void) | null = null;

  private _inlineBody(side: Side, path: string, step?: string): IBody | null | undefined {
    const p = this._payload;
    if (side === 'dsl') {
      return p.dsl;
    }
    if (side === 'final') {
      return p.final?.files.find(f => f.path === path)?.body ?? null;
    }
    const file = p.passes.find(x => x.name === step)?.files.find(f => f.path === path);
    if (!file) {
      return null;
    }
    return side === 'before' ? file.before : file.after;
  }

  private _fetch(key: string, req: IRequest, fallback: IBody | null | undefined): void {
    // Keyed by revision too: a fetch for an older payload must not hold back this one's.
    const revision = this._state.revision;
    const flight = `${revision}|${key}`;
    if (this._inflight.has(flight) || !this._link) {
      return;
    }
    this._inflight.add(flight);
    void this._link
      .request(req)
      .catch((err: Error): IReply => ({ id: 0, ok: false, gone: true, error: String(err && err.message) }))
      .then(reply => {
        this._inflight.delete(flight);
        if (this._disposed || revision !== this._state.revision) {
          return; // a newer payload arrived meanwhile: its bodies are fetched anew
        }
        if (reply.gone) {
          return; // asked again when the link is back (its status change redraws the view)
        }
        this._bodies.set(key, reply.ok && reply.body ? (reply.body.missing ? null : reply.body) : fallback ?? null);
        if (!reply.ok) {
          this.dispatch({ type: 'reply', ok: false, error: reply.error });
        }
        this._changed.emit();
      });
  }

  private _onLinkStatus(_: IPipelineLink, status: LinkStatus): void {
    this.dispatch({ type: 'link', state: status, reason: this._link?.reason });
  }

  private _onPayload(_: IPipelineLink, change: { session: string; payload: IPipelinePayload }): void {
    if (change.session === this.session || change.payload.session.folder === this.session) {
      this.setPayload(change.payload);
    }
  }

  /** Reload the session from the kernel (after a (re)connect: the folder is the truth). */
  private async _refresh(): Promise<void> {
    if (!this._link) {
      return;
    }
    const reply = await this._link.request({ action: 'state', session: this.session });
    if (!reply.ok && !reply.gone && !this._disposed) {
      // The kernel cannot open this session (e.g. its folder is gone): keep the saved view.
      this.dispatch({ type: 'link', state: 'unavailable', reason: firstLine(reply.error) });
      this.dispatch({ type: 'reply', ok: false, error: reply.error });
    }
  }

  private _payload: IPipelinePayload;
  private _state: IViewState;
  private _timeline: ITimeline | null = null;
  private _link: IPipelineLink | null = null;
  private _bodies = new Map<string, IBody | null>();
  private _inflight = new Set<string>();
  private _changed = new Signal<this, void>(this);
  private _disposed = false;
}

function firstLine(text: string | undefined): string {
  return (text || '').split('\n')[0].replace(/^error:\s*/, '');
}
