/**
 * The pipeline views alive in the application, and which one was used last: commands act on
 * the view their `session` argument names (preferring the last used), or on the last used.
 */
export interface IRegisteredView {
  readonly session: string;
  readonly isDisposed: boolean;
}

export class ViewRegistry<T extends IRegisteredView> {
  add(view: T): void {
    this._views.add(view);
    this._current = this._current && !this._current.isDisposed ? this._current : view;
  }

  remove(view: T): void {
    this._views.delete(view);
    if (this._current === view) {
      this._current = null;
    }
  }

  /** Mark a view as the one used last (focus or click inside it). */
  use(view: T): void {
    this._current = view;
  }

  find(session?: string): T | null {
    const current = this._current && !this._current.isDisposed ? this._current : null;
    if (!session) {
      return current || this._last();
    }
    if (current && current.session === session) {
      return current;
    }
    let found: T | null = null;
    for (const v of this._views) {
      if (!v.isDisposed && v.session === session) {
        found = v;
      }
    }
    return found;
  }

  /** Every live view, in the order they were added. */
  all(): T[] {
    return [...this._views].filter(v => !v.isDisposed);
  }

  get size(): number {
    return this._views.size;
  }

  private _last(): T | null {
    let last: T | null = null;
    for (const v of this._views) {
      if (!v.isDisposed) {
        last = v;
      }
    }
    return last;
  }

  private _views = new Set<T>();
  private _current: T | null = null;
}
