/**
 * The pass list (a status dot, `+N -M`, the time and the status per pass; up/down keys move
 * the selection) and the action buttons under it. Whether a button is open, and its tooltip,
 * come from Python's view model (`actions` in the payload) through `logic/state.ts`, which adds
 * only the view's own reasons (no kernel, a request in flight, an open editor).
 */
import { formatSeconds, statLabel, visiblePasses } from '../logic/passes';
import { actionTitle, sideStatus, whyNot } from '../logic/state';
import { ActionName, CommandIDs } from '../tokens';
import { IViewContext, el } from './dom';

const ACTIONS: { action: ActionName; command: string; label: string; primary?: boolean }[] = [
  { action: 'accept', command: CommandIDs.acceptStep, label: 'Accept' },
  { action: 'edit', command: CommandIDs.editStep, label: 'Edit' },
  { action: 'undo', command: CommandIDs.undoStep, label: 'Undo' },
  { action: 'regenerate', command: CommandIDs.regenerateStep, label: 'Regenerate' },
  { action: 'compile', command: CommandIDs.compile, label: 'Compile & verify', primary: true },
  { action: 'profile', command: CommandIDs.profile, label: 'Profile' }
];

export class PassList {
  /** The sidebar: the list, then the actions. */
  readonly node = el('div', 'acl-sidebar');

  constructor(private readonly _ctx: () => IViewContext | null) {
    const list = (this._list = el('ul', 'acl-passes', undefined, { role: 'listbox', tabindex: '0', 'aria-label': 'passes' }));
    list.addEventListener('keydown', event => this._onKey(event));
    list.addEventListener('click', event => {
      const li = (event.target as HTMLElement).closest('li[data-step]');
      const ctx = this._ctx();
      if (li && ctx) {
        void ctx.exec(CommandIDs.selectStep, { step: li.getAttribute('data-step') });
        list.focus();
      }
    });
    this._actions = el('div', 'acl-actions');
    // Where the pipeline stands, right under the buttons: a verdict shows where the click was.
    this._status = el('div', 'acl-side-status', undefined, { role: 'status', 'aria-live': 'polite' });
    this.node.append(list, this._actions, this._status);
  }

  render(ctx: IViewContext): void {
    this._renderList(ctx);
    this._renderActions(ctx);
    this._renderStatus(ctx);
  }

  private _renderStatus(ctx: IViewContext): void {
    const s = ctx.model.state;
    const status = sideStatus(s, ctx.model.payload);
    this._status.textContent = status.text;
    this._status.setAttribute('data-state', status.state);
    const finished = this._wasBusy !== null && !s.busy;
    this._wasBusy = s.busy;
    if (finished && this._status.isConnected) {
      // A request ended (a verdict, a profile, an error): bring its line into view where the
      // button was clicked, without moving the page when it is already there.
      this._status.scrollIntoView({ block: 'nearest' });
    }
  }

  private _renderList(ctx: IViewContext): void {
    const m = ctx.model;
    const s = m.state;
    const list = this._list;
    list.textContent = '';
    const visible = visiblePasses(m.payload.passes, s.hideUnchanged);
    for (const p of visible) {
      const li = el('li', 'acl-pass', undefined, {
        role: 'option',
        'data-step': p.name,
        'data-status': p.status,
        'aria-selected': String(p.name === s.selected),
        title: `${p.reason} — ${p.label}`
      });
      li.append(
        el('span', 'acl-dot', undefined, { 'aria-hidden': 'true' }),
        el('span', 'acl-pass-name', `${p.number} ${p.name}`),
        el('span', 'acl-pass-stat', statLabel(p)),
        el('span', 'acl-pass-time', formatSeconds(p.seconds)),
        el('span', 'acl-pass-status', p.label)
      );
      list.append(li);
    }
    const hidden = m.payload.passes.length - visible.length;
    if (hidden) {
      list.append(el('li', 'acl-pass-hidden', `${hidden} unchanged hidden`, { role: 'presentation' }));
    }
  }

  private _renderActions(ctx: IViewContext): void {
    const m = ctx.model;
    const s = m.state;
    const box = this._actions;
    box.textContent = '';
    for (const a of ACTIONS) {
      const b = el('button', `acl-action${a.primary ? ' acl-primary' : ''}`, a.label, {
        'data-action': a.action,
        title: actionTitle(a.action, s, m.payload)
      });
      b.disabled = whyNot(a.action, s, m.payload) !== null;
      if (s.busy === a.action) {
        b.classList.add('acl-busy');
      }
      b.addEventListener('click', () => {
        const args: { [k: string]: string } = {};
        if (a.action !== 'compile' && a.action !== 'profile' && s.selected) {
          args.step = s.selected;
        }
        void ctx.exec(a.command, args);
      });
      box.append(b);
    }
  }

  private _onKey(event: KeyboardEvent): void {
    const moves: { [key: string]: string } = { ArrowDown: CommandIDs.nextStep, ArrowUp: CommandIDs.previousStep };
    const command = moves[event.key];
    const ctx = this._ctx();
    if (command && ctx) {
      event.preventDefault();
      void ctx.exec(command);
    }
  }

  private readonly _list: HTMLUListElement;
  private readonly _actions: HTMLElement;
  private readonly _status: HTMLElement;
  private _wasBusy: string | null = null;
}
