/**
 * The geometry of the Profile's pipe timeline (ESTIMATED): one row per pipe of each block shown,
 * the spans as boxes on one time axis, drawn `zoom` times wider than the view. Pure: the view
 * (components/view.ts) turns the rows into SVG and owns the zoom controls.
 */
import type { ITimeline } from '../tokens';

export const LABEL_PX = 96;
export const ROW_PX = 18;
export const AXIS_PX = 20;
export const MIN_ZOOM = 1;
export const MAX_ZOOM = 64;

export interface ITimelineBox {
  x: number;
  width: number;
  title: string;
}

export interface ITimelineRow {
  block: string;
  pipe: string;
  y: number;
  boxes: ITimelineBox[];
}

export interface ITimelineLayout {
  width: number;
  height: number;
  rows: ITimelineRow[];
  /** Axis ticks: x and the time they mark (seconds). */
  ticks: { x: number; t: number }[];
}

/** Microseconds as the Python reports print them. */
export function formatMicros(seconds: number): string {
  return `${(seconds * 1e6).toFixed(2)} us`;
}

/** The next zoom level in or out (doubling), kept within [MIN_ZOOM, MAX_ZOOM]. */
export function stepZoom(zoom: number, direction: 1 | -1): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, direction > 0 ? zoom * 2 : zoom / 2));
}

/** Rows, boxes and ticks for a view `viewWidth` px wide at `zoom`. */
export function layoutTimeline(t: ITimeline, viewWidth: number, zoom: number): ITimelineLayout {
  const plot = Math.max(100, viewWidth - LABEL_PX - 8) * Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
  const scale = plot / Math.max(t.end, 1e-12);
  const rows: ITimelineRow[] = [];
  for (const b of t.blocks) {
    for (const p of b.pipes) {
      const y = AXIS_PX + rows.length * ROW_PX;
      const boxes = p.spans.map(([start, end, api, line]) => ({
        x: LABEL_PX + start * scale,
        width: Math.max(0.5, (end - start) * scale),
        title: `${api} (kernel line ${line}): ${formatMicros(start)} .. ${formatMicros(end)}`
      }));
      rows.push({ block: b.label, pipe: p.pipe, y, boxes });
    }
  }
  const count = Math.max(2, Math.round(plot / 120));
  const ticks = Array.from({ length: count + 1 }, (_, i) => ({ x: LABEL_PX + (plot * i) / count, t: (t.end * i) / count }));
  return { width: LABEL_PX + plot + 8, height: AXIS_PX + rows.length * ROW_PX + 4, rows, ticks };
}
