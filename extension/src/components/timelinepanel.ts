/**
 * The last Profile's pipe timelines (ESTIMATED) in a dock panel: an SVG with a row per pipe of
 * each block shown, zoomed with the buttons or Ctrl + wheel, scrolled sideways in its box, and
 * redrawn for the dock's width. The geometry is logic/timeline.ts; the data is Python's.
 */
import { formatMicros, layoutTimeline, stepZoom } from '../logic/timeline';
import { ITimeline } from '../tokens';
import { el } from './dom';

const NS = 'http://www.w3.org/2000/svg';

export class TimelinePanel {
  /** `panel`: makes (or finds) the dock panel; `dock`: the element whose width the drawing fills. */
  constructor(
    private readonly _panel: () => HTMLElement,
    private readonly _dock: HTMLElement,
    private readonly _fallbackWidth: () => number
  ) {}

  render(t: ITimeline | null): void {
    if (!t || !t.blocks.length) {
      return;
    }
    const panel = this._panel();
    const width = Math.max(400, (this._dock.clientWidth || this._fallbackWidth() || 1000) - 16);
    const key = `${this._zoom}|${width}`;
    if (panel.dataset.drawn === key && this._shown === t) {
      return;
    }
    if (!this._resize && typeof ResizeObserver !== 'undefined') {
      this._resize = new ResizeObserver(() => this.render(this._shown));
      this._resize.observe(this._dock);
    }
    this._shown = t;
    panel.dataset.drawn = key;
    panel.textContent = '';
    panel.append(this._bar(t), this._drawing(t, width));
  }

  dispose(): void {
    this._resize?.disconnect();
  }

  private _zoomTo(z: number): void {
    this._zoom = z;
    this.render(this._shown);
  }

  private _bar(t: ITimeline): HTMLElement {
    const bar = el('div', 'acl-timeline-bar', undefined, { role: 'toolbar', 'aria-label': 'timeline zoom' });
    bar.append(el('span', 'acl-timeline-title', `ESTIMATED pipe timeline of block${t.blocks.length > 1 ? 's' : ''} ` +
      `${t.blocks.map(b => b.label).join(', ')} (0 .. ${formatMicros(t.end)}; pipe model, not a measurement)`));
    for (const [label, title, next] of [
      ['-', 'zoom out', () => stepZoom(this._zoom, -1)],
      ['+', 'zoom in', () => stepZoom(this._zoom, 1)],
      ['Fit', 'the whole run in the view', () => 1]
    ] as [string, string, () => number][]) {
      const b = el('button', 'acl-tool acl-timeline-zoom', label, { type: 'button', title, 'aria-label': title });
      b.addEventListener('click', () => this._zoomTo(next()));
      bar.append(b);
    }
    bar.append(el('span', 'acl-timeline-level', `${this._zoom}x`));
    return bar;
  }

  private _drawing(t: ITimeline, width: number): HTMLElement {
    const box = el('div', 'acl-timeline-box');
    const geo = layoutTimeline(t, width, this._zoom);
    const svg = svgEl('svg', { width: geo.width, height: geo.height, class: 'acl-timeline', role: 'img',
      'aria-label': 'ESTIMATED pipe timeline' });
    geo.ticks.forEach((tick, i) => {
      const last = i === geo.ticks.length - 1;    // the end's label ends at the end, inside the drawing
      const label = svgEl('text', { x: last ? tick.x - 2 : tick.x + 2, y: 12, class: 'acl-timeline-tick',
        'text-anchor': last ? 'end' : 'start' });
      label.textContent = formatMicros(tick.t);
      svg.append(svgEl('line', { x1: tick.x, x2: tick.x, y1: 14, y2: geo.height, class: 'acl-timeline-grid' }), label);
    });
    for (const row of geo.rows) {
      const g = svgEl('g', { class: 'acl-timeline-row', 'data-block': row.block, 'data-pipe': row.pipe });
      const name = svgEl('text', { x: 4, y: row.y + 13, class: 'acl-timeline-label' });
      name.textContent = `block ${row.block} ${row.pipe}`;
      g.append(name);
      for (const span of row.boxes) {
        const r = svgEl('rect', { x: span.x.toFixed(2), y: row.y + 3, width: span.width.toFixed(2), height: 12,
          class: 'acl-timeline-span' });
        const tip = document.createElementNS(NS, 'title');
        tip.textContent = span.title;
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
      this._zoomTo(stepZoom(this._zoom, event.deltaY < 0 ? 1 : -1));
    }, { passive: false });
    return box;
  }

  private _zoom = 1;
  private _shown: ITimeline | null = null;
  private _resize: ResizeObserver | null = null;
}

function svgEl(tag: string, attrs: { [k: string]: string | number }): SVGElement {
  const node = document.createElementNS(NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) {
    node.setAttribute(k, String(v));
  }
  return node;
}
