/**
 * The pass list: which passes show, moving the selection, and the short labels beside each.
 * Facts (status, +N -M, seconds, whether a pass changed anything) come from the payload; this
 * only filters and formats them.
 */

export interface IPassLike {
  name: string;
  status: string;
  added: number;
  removed: number;
  seconds: number;
  /** Python's: the pass changed nothing (never a failed or not-run pass). */
  unchanged: boolean;
}

/** The passes to list: all, or those the view model does not call unchanged. */
export function visiblePasses<T extends IPassLike>(passes: readonly T[], hideUnchanged: boolean): T[] {
  return hideUnchanged ? passes.filter(p => !p.unchanged) : passes.slice();
}

/**
 * The selection after the list changed: kept when still visible, else the nearest visible
 * pass after it in pipeline order (then before it), else null.
 */
export function keepSelection(
  all: readonly IPassLike[],
  visible: readonly IPassLike[],
  selected: string | null
): string | null {
  if (!visible.length) {
    return null;
  }
  if (selected && visible.some(p => p.name === selected)) {
    return selected;
  }
  const at = all.findIndex(p => p.name === selected);
  if (at >= 0) {
    const shown = new Set(visible.map(p => p.name));
    for (let i = at + 1; i < all.length; i++) {
      if (shown.has(all[i].name)) {
        return all[i].name;
      }
    }
    for (let i = at - 1; i >= 0; i--) {
      if (shown.has(all[i].name)) {
        return all[i].name;
      }
    }
  }
  return visible[0].name;
}

/** Up/down in the list: `delta` steps from `selected`, clamped to the ends. */
export function moveSelection(
  visible: readonly IPassLike[],
  selected: string | null,
  delta: number
): string | null {
  if (!visible.length) {
    return null;
  }
  const at = visible.findIndex(p => p.name === selected);
  if (at < 0) {
    return visible[delta < 0 ? visible.length - 1 : 0].name;
  }
  const next = Math.min(visible.length - 1, Math.max(0, at + delta));
  return visible[next].name;
}

/** "+N -M", or "no change". */
export function statLabel(p: IPassLike): string {
  if (p.status === 'not-run') {
    return 'not run';
  }
  return p.added || p.removed ? `+${p.added} -${p.removed}` : 'no change';
}

/** Seconds as people read them: "840 µs", "12 ms", "1.4 s". */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s <= 0) {
    return '';
  }
  if (s < 1e-3) {
    return `${Math.round(s * 1e6)} µs`;
  }
  if (s < 1) {
    return `${s < 0.01 ? (s * 1e3).toFixed(1) : Math.round(s * 1e3)} ms`;
  }
  return `${s.toFixed(s < 10 ? 1 : 0)} s`;
}
