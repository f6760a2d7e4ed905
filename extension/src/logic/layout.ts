/**
 * How the code panes are laid out: side by side in resizable columns, or stacked full width
 * (automatically when the view is narrow), wrapped lines or not, and how tall they are. These
 * are a person's preferences, not facts about the pipeline: they live in the user settings
 * (schema/pipeline.json; the keys below are its property names) and every view follows them.
 */

export type PaneLayout = 'auto' | 'columns' | 'stacked';
export type Arrangement = 'columns' | 'stacked';

export interface ILayoutPrefs {
  paneLayout: PaneLayout;
  wrapLines: boolean;
  /** Relative widths of the DSL, step and final panes in columns (they sum to 1). */
  columnWidths: number[];
  /** Height of the code in each pane, in px. */
  paneHeight: number;
  /** In `auto`, the panes stack when the view is narrower than this, in px. */
  stackBelow: number;
}

export const PANE_COUNT = 3;
/** No pane is dragged narrower than this (px): its tabs and title stay usable. */
export const MIN_PANE_WIDTH = 160;
export const MIN_PANE_HEIGHT = 160;
export const MAX_PANE_HEIGHT = 2000;

/**
 * The defaults. The step's diff gets the most room (two texts side by side); the DSL, short
 * lines, the least. Stacking below 1600 px: three panes of C++ beside each other (the step's
 * two texts side by side) need that much before each shows a usual 60-80 character line.
 */
export const DEFAULT_PREFS: ILayoutPrefs = {
  paneLayout: 'auto',
  wrapLines: false,
  columnWidths: [0.25, 0.45, 0.3],
  paneHeight: 420,
  stackBelow: 1600
};

/**
 * The arrangement for a view `width` px wide. Not measured yet (0), `auto` stacks: most views
 * are narrower than the threshold, and stacked panes cut nothing off.
 */
export function arrange(prefs: Pick<ILayoutPrefs, 'paneLayout' | 'stackBelow'>, width: number): Arrangement {
  if (prefs.paneLayout !== 'auto') {
    return prefs.paneLayout;
  }
  return width < prefs.stackBelow ? 'stacked' : 'columns';
}

/**
 * Pane widths (px) after dragging the splitter right of pane `boundary` by `dx` px: the two
 * panes beside it trade width, neither below `min`; the others keep theirs.
 */
export function dragSplitter(widths: readonly number[], boundary: number, dx: number, min = MIN_PANE_WIDTH): number[] {
  const out = [...widths];
  if (boundary < 0 || boundary + 1 >= widths.length) {
    return out;
  }
  const pair = widths[boundary] + widths[boundary + 1];
  if (pair < 2 * min) {
    return out; // too narrow to trade: leave them
  }
  const left = Math.max(min, Math.min(pair - min, widths[boundary] + dx));
  out[boundary] = left;
  out[boundary + 1] = pair - left;
  return out;
}

/** Widths as fractions summing to 1, rounded to 0.1 % (what the settings store). */
export function toFractions(widths: readonly number[]): number[] {
  const total = widths.reduce((a, b) => a + b, 0);
  if (!(total > 0)) {
    return [...DEFAULT_PREFS.columnWidths];
  }
  return widths.map(w => Math.round((w / total) * 1000) / 1000);
}

/** A pane height within the allowed range, in whole px. */
export function clampHeight(px: number): number {
  return Math.round(Math.max(MIN_PANE_HEIGHT, Math.min(MAX_PANE_HEIGHT, px)));
}

/** The CSS grid columns of the pane row: pane, splitter, pane, splitter, pane. */
export function gridColumns(fractions: readonly number[], splitter: number): string {
  return fractions.map(f => `minmax(0, ${f}fr)`).join(` ${splitter}px `);
}

/** Preferences from the settings (or anything else): unknown or invalid values fall back to the defaults. */
export function readPrefs(raw: { [key: string]: unknown } | null | undefined): ILayoutPrefs {
  const r = raw || {};
  const d = DEFAULT_PREFS;
  const layouts: PaneLayout[] = ['auto', 'columns', 'stacked'];
  const widths = r.columnWidths;
  const validWidths =
    Array.isArray(widths) &&
    widths.length === PANE_COUNT &&
    widths.every(w => typeof w === 'number' && Number.isFinite(w) && w > 0);
  const height = r.paneHeight;
  const stack = r.stackBelow;
  return {
    paneLayout: layouts.includes(r.paneLayout as PaneLayout) ? (r.paneLayout as PaneLayout) : d.paneLayout,
    wrapLines: typeof r.wrapLines === 'boolean' ? r.wrapLines : d.wrapLines,
    columnWidths: validWidths ? toFractions(widths as number[]) : [...d.columnWidths],
    paneHeight: typeof height === 'number' && Number.isFinite(height) ? clampHeight(height) : d.paneHeight,
    stackBelow: typeof stack === 'number' && Number.isFinite(stack) && stack >= 0 ? stack : d.stackBelow
  };
}
