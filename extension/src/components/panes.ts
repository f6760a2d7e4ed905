/**
 * `PaneGrid`: the row of code panes (DSL draft | step | final project) and its layout — resizable
 * columns with a draggable splitter between panes, or stacked full width, `auto` choosing by the
 * width the view has (logic/layout.ts) — and the grip under the panes that sets their height.
 * Drags and keys change the shared preferences (prefs.ts) once, when they end; while dragging
 * only this grid moves.
 */
import { IDisposable } from '@lumino/disposable';

import {
  Arrangement,
  DEFAULT_PREFS,
  arrange,
  clampHeight,
  dragSplitter,
  gridColumns,
  toFractions
} from '../logic/layout';
import { LayoutPrefs } from '../prefs';

const SPLITTER_PX = 6;
const KEY_STEP_PX = 32;

export class PaneGrid implements IDisposable {
  /** `panes`: the pane elements, left to right (top to bottom when stacked). */
  constructor(
    private readonly _panes: HTMLElement[],
    private readonly _prefs: LayoutPrefs
  ) {
    const node = (this.node = document.createElement('div'));
    node.className = 'acl-panes-box';
    const row = (this._row = document.createElement('div'));
    row.className = 'acl-panes';
    _panes.forEach((pane, i) => {
      row.append(pane);
      if (i + 1 < _panes.length) {
        row.append(this._splitter(i));
      }
    });
    node.append(row, this._heightGrip());
    this._observer = new ResizeObserver(entries => {
      const width = entries[entries.length - 1].contentRect.width;
      if (width !== this._width) {
        this._width = width;
        // Next frame: re-arranging inside the observer's callback would resize what it observes.
        requestAnimationFrame(() => this.apply());
      }
    });
    this._observer.observe(node);
    _prefs.changed.connect(this.apply, this);
    this.apply();
  }

  readonly node: HTMLElement;

  /** How the panes are laid out now. */
  get arrangement(): Arrangement {
    return arrange(this._prefs.value, this._width);
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Lay the panes out by the preferences and the measured width. */
  apply(): void {
    if (this._disposed) {
      return;
    }
    const prefs = this._prefs.value;
    const arrangement = this.arrangement;
    this._row.setAttribute('data-arrangement', arrangement);
    this._row.style.gridTemplateColumns = arrangement === 'columns' ? gridColumns(prefs.columnWidths, SPLITTER_PX) : '';
    this.node.style.setProperty('--acl-pane-height', `${prefs.paneHeight}px`);
    for (const s of this._row.querySelectorAll<HTMLElement>('.acl-splitter')) {
      s.hidden = arrangement !== 'columns';
    }
    if (arrangement !== this._last) {
      this._last = arrangement;
      this.onArranged?.(arrangement);
    }
  }

  /** Called when the arrangement changes (e.g. the toolbar says what `auto` chose). */
  onArranged: ((arrangement: Arrangement) => void) | null = null;

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._observer.disconnect();
    this._prefs.changed.disconnect(this.apply, this);
  }

  private _splitter(boundary: number): HTMLElement {
    const s = document.createElement('div');
    s.className = 'acl-splitter';
    s.tabIndex = 0;
    s.setAttribute('role', 'separator');
    s.setAttribute('aria-orientation', 'vertical');
    s.setAttribute('aria-label', 'resize the panes beside this line');
    s.title = 'drag to resize the panes · double-click: default widths';
    s.addEventListener('pointerdown', event => {
      if (event.button !== 0) {
        return;
      }
      event.preventDefault();
      const start = this._widths();
      const x0 = event.clientX;
      let widths = start;
      this._drag(s, event, e => {
        widths = dragSplitter(start, boundary, e.clientX - x0);
        this._row.style.gridTemplateColumns = gridColumns(toFractions(widths), SPLITTER_PX);
      }, () => this._prefs.update({ columnWidths: toFractions(widths) }));
    });
    s.addEventListener('keydown', event => {
      const dx = event.key === 'ArrowLeft' ? -KEY_STEP_PX : event.key === 'ArrowRight' ? KEY_STEP_PX : 0;
      if (dx) {
        event.preventDefault();
        this._prefs.update({ columnWidths: toFractions(dragSplitter(this._widths(), boundary, dx)) });
      }
    });
    s.addEventListener('dblclick', () => this._prefs.update({ columnWidths: [...DEFAULT_PREFS.columnWidths] }));
    return s;
  }

  private _heightGrip(): HTMLElement {
    const g = document.createElement('div');
    g.className = 'acl-height-grip';
    g.tabIndex = 0;
    g.setAttribute('role', 'separator');
    g.setAttribute('aria-orientation', 'horizontal');
    g.setAttribute('aria-label', 'resize the height of the code panes');
    g.title = 'drag to change the height of the code panes · double-click: default height';
    const set = (px: number) => this.node.style.setProperty('--acl-pane-height', `${px}px`);
    g.addEventListener('pointerdown', event => {
      if (event.button !== 0) {
        return;
      }
      event.preventDefault();
      const h0 = this._prefs.value.paneHeight;
      const y0 = event.clientY;
      let height = h0;
      this._drag(g, event, e => {
        height = clampHeight(h0 + e.clientY - y0);
        set(height);
      }, () => this._prefs.update({ paneHeight: height }));
    });
    g.addEventListener('keydown', event => {
      const dy = event.key === 'ArrowUp' ? -KEY_STEP_PX : event.key === 'ArrowDown' ? KEY_STEP_PX : 0;
      if (dy) {
        event.preventDefault();
        this._prefs.update({ paneHeight: clampHeight(this._prefs.value.paneHeight + dy) });
      }
    });
    g.addEventListener('dblclick', () => this._prefs.update({ paneHeight: DEFAULT_PREFS.paneHeight }));
    return g;
  }

  /**
   * Follow the pointer until it is released (captured: leaving the handle does not end the
   * drag); `done` only if it moved, so a click (or a double click's clicks) saves nothing.
   */
  private _drag(handle: HTMLElement, down: PointerEvent, move: (e: PointerEvent) => void, done: () => void): void {
    handle.setPointerCapture(down.pointerId);
    this.node.classList.add('acl-dragging');
    let moved = false;
    const onMove = (e: PointerEvent) => {
      moved = moved || e.clientX !== down.clientX || e.clientY !== down.clientY;
      if (moved) {
        move(e);
      }
    };
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
      handle.removeEventListener('pointercancel', onUp);
      this.node.classList.remove('acl-dragging');
      if (moved) {
        done();
      }
      this.apply();
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
    handle.addEventListener('pointercancel', onUp);
  }

  private _widths(): number[] {
    return this._panes.map(p => p.getBoundingClientRect().width);
  }

  private _row: HTMLElement;
  private _observer: ResizeObserver;
  private _width = 0;
  private _last: Arrangement | null = null;
  private _disposed = false;
}
