/**
 * One notebook's link to its kernel: a single `ascendcraft.pipeline` comm (see
 * ascendcraft_lab/notebook/comm.py), opened when the first pipeline view of the notebook asks
 * for it, after the session context is ready. It follows the kernel: a restart or a change of
 * kernel drops the comm and, once the new kernel is idle, opens a new one and says so
 * (`connected`), so the views reload their session from its folder. No timers.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  COMM_TARGET,
  IEventMessage,
  IPipelinePayload,
  IReply,
  IRequest,
  LinkStatus,
  PROTOCOL_VERSION,
  REGISTER_CODE
} from './tokens';

interface IPending {
  resolve: (reply: IReply) => void;
  onProgress?: (text: string) => void;
}

const GONE = ['restarting', 'autorestarting', 'dead', 'terminating', 'unknown'];

export interface IPipelineLink {
  readonly status: LinkStatus;
  readonly reason: string;
  readonly statusChanged: ISignal<IPipelineLink, LinkStatus>;
  /** A session's new payload, from a reply or from the kernel (a change made in a cell). */
  readonly payloadChanged: ISignal<IPipelineLink, { session: string; payload: IPipelinePayload }>;
  /** A (new) comm is open: views reload their state. */
  readonly connected: ISignal<IPipelineLink, void>;
  connect(): void;
  request(req: IRequest, onProgress?: (text: string) => void): Promise<IReply>;
}

export class KernelLink implements IPipelineLink, IDisposable {
  constructor(private readonly _context: ISessionContext) {
    _context.kernelChanged.connect(this._onKernelChanged, this);
    _context.statusChanged.connect(this._onStatus, this);
  }

  get status(): LinkStatus {
    return this._status;
  }

  get reason(): string {
    return this._reason;
  }

  get statusChanged(): ISignal<IPipelineLink, LinkStatus> {
    return this._statusChanged;
  }

  get payloadChanged(): ISignal<IPipelineLink, { session: string; payload: IPipelinePayload }> {
    return this._payloadChanged;
  }

  get connected(): ISignal<IPipelineLink, void> {
    return this._connected;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Open the comm if it is not open (idempotent); views call this when they attach. */
  connect(): void {
    this._wanted = true;
    void this._ensure();
  }

  async request(req: IRequest, onProgress?: (text: string) => void): Promise<IReply> {
    this._wanted = true;
    let comm = await this._ensure();
    if (comm && comm.isDisposed) {
      comm = await this._ensure(); // the kernel restarted while we waited
    }
    if (!comm) {
      return { id: 0, ok: false, gone: true, error: this._reason || 'no kernel: the view is read-only' };
    }
    const id = this._nextId++;
    const reply = new Promise<IReply>(resolve => this._pending.set(id, { resolve, onProgress }));
    try {
      comm.send({ id, ...req } as any);
    } catch (err) {
      this._pending.delete(id);
      return { id, ok: false, gone: true, error: 'the connection to the kernel closed; nothing was changed' };
    }
    const result = await reply;
    if (result.ok && result.payload) {
      this._payloadChanged.emit({ session: req.session, payload: result.payload });
    }
    return result;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._drop('the notebook was closed');
    if (this._comm && !this._comm.isDisposed) {
      this._comm.close();
    }
    Signal.clearData(this);
  }

  private _ensure(): Promise<Kernel.IComm | null> {
    if (this._comm && !this._comm.isDisposed) {
      return Promise.resolve(this._comm);
    }
    if (!this._opening) {
      this._opening = this._open().finally(() => (this._opening = null));
    }
    return this._opening;
  }

  private async _open(): Promise<Kernel.IComm | null> {
    this._setStatus('connecting', '');
    await this._context.ready;
    const kernel = this._context.session?.kernel;
    if (!kernel || this._disposed) {
      this._setStatus('no-kernel', 'no kernel is running for this notebook');
      return null;
    }
    try {
      const info = await kernel.info;
      if (info.language_info.name !== 'python') {
        this._setStatus('unavailable', `the kernel runs ${info.language_info.name}, not Python`);
        return null;
      }
      // Register the comm target (idempotent): no %load_ext needed after a restart.
      const done = (await kernel.requestExecute(
        { code: REGISTER_CODE, silent: true, store_history: false, allow_stdin: false, stop_on_error: false },
        true
      ).done) as KernelMessage.IExecuteReplyMsg;
      if (done.content.status !== 'ok') {
        this._setStatus('unavailable', 'ascendcraft_lab cannot be imported in this kernel');
        return null;
      }
      if (kernel !== this._context.session?.kernel || kernel.isDisposed) {
        return null; // the kernel changed meanwhile: _onKernelChanged opens anew
      }
      const comm = kernel.createComm(COMM_TARGET);
      comm.onMsg = msg => this._onMessage(msg.content.data as any);
      comm.onClose = () => {
        if (this._comm === comm) {
          this._drop('the kernel closed the connection');
          this._setStatus('no-kernel', 'the kernel closed the connection');
        }
      };
      await comm.open({ version: PROTOCOL_VERSION }).done;
      this._comm = comm;
      this._setStatus('live', '');
      this._connected.emit();
      return comm;
    } catch (err) {
      if (!this._disposed) {
        this._setStatus('no-kernel', `the kernel went away (${(err as Error).message || err})`);
      }
      return null;
    }
  }

  private _onMessage(data: IReply | IEventMessage): void {
    if ('event' in data) {
      if (data.event === 'progress' && data.id !== undefined) {
        this._pending.get(data.id)?.onProgress?.(data.text || '');
      } else if (data.event === 'changed' && data.session && data.payload) {
        this._payloadChanged.emit({ session: data.session, payload: data.payload });
      }
      return;
    }
    const pending = this._pending.get(data.id);
    if (pending) {
      this._pending.delete(data.id);
      pending.resolve(data);
    }
  }

  /** Forget the comm and fail every request in flight with `why`. */
  private _drop(why: string): void {
    this._comm = null;
    const pending = [...this._pending.entries()];
    this._pending.clear();
    for (const [id, p] of pending) {
      p.resolve({ id, ok: false, gone: true, error: `${why}; nothing was changed by this view` });
    }
  }

  private _onKernelChanged(_: ISessionContext, change: { newValue: Kernel.IKernelConnection | null }): void {
    this._drop('the kernel changed');
    if (!change.newValue) {
      this._setStatus('no-kernel', 'no kernel is running for this notebook');
    } else if (this._wanted) {
      void this._ensure();
    }
  }

  private _onStatus(_: ISessionContext, status: Kernel.Status): void {
    if (GONE.includes(status)) {
      if (this._comm || this._status === 'live' || this._status === 'unavailable') {
        this._drop(`the kernel is ${status}`);
        this._setStatus(status === 'dead' ? 'no-kernel' : 'connecting', `the kernel is ${status}`);
      }
    } else if (status === 'idle' && this._wanted && !this._comm && !this._opening && this._status !== 'unavailable') {
      void this._ensure();
    }
  }

  private _setStatus(status: LinkStatus, reason: string): void {
    if (status !== this._status || reason !== this._reason) {
      this._status = status;
      this._reason = reason;
      this._statusChanged.emit(status);
    }
  }

  private _comm: Kernel.IComm | null = null;
  private _opening: Promise<Kernel.IComm | null> | null = null;
  private _pending = new Map<number, IPending>();
  private _nextId = 1;
  private _wanted = false;
  private _disposed = false;
  private _status: LinkStatus = 'connecting';
  private _reason = '';
  private _statusChanged = new Signal<IPipelineLink, LinkStatus>(this);
  private _payloadChanged = new Signal<IPipelineLink, { session: string; payload: IPipelinePayload }>(this);
  private _connected = new Signal<IPipelineLink, void>(this);
}
