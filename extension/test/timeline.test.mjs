// The Profile timeline's geometry (src/logic/timeline.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LABEL_PX, MAX_ZOOM, layoutTimeline, stepZoom } from '../lib/logic/timeline.js';

const timeline = {
  estimate: true,
  end: 4e-6,
  blocks: [
    { label: '0', elapsed: 4e-6, pipes: [
      { pipe: 'MTE2', spans: [[0, 1e-6, 'DataCopy', 40], [2e-6, 3e-6, 'DataCopy', 40]] },
      { pipe: 'V', spans: [[1e-6, 4e-6, 'Mul', 52]] }
    ] },
    { label: '1', elapsed: 4e-6, pipes: [{ pipe: 'MTE2', spans: [[0, 2e-6, 'DataCopy', 40]] }] }
  ]
};

test('one row per pipe of each block, in order, one box per span', () => {
  const geo = layoutTimeline(timeline, 1000, 1);
  assert.deepEqual(geo.rows.map(r => `${r.block} ${r.pipe}`), ['0 MTE2', '0 V', '1 MTE2']);
  assert.deepEqual(geo.rows.map(r => r.boxes.length), [2, 1, 1]);
  assert.ok(geo.rows[1].y > geo.rows[0].y && geo.height > geo.rows[2].y);
});

test('the run fills the view at zoom 1 and boxes stand where their times are', () => {
  const geo = layoutTimeline(timeline, 1000, 1);
  const v = geo.rows[1].boxes[0];
  assert.ok(Math.abs(v.x + v.width - (geo.width - 8)) < 1e-6);   // V ends at the end of the run
  assert.ok(Math.abs(geo.rows[0].boxes[0].x - LABEL_PX) < 1e-9);
  assert.match(v.title, /Mul \(kernel line 52\): 1\.00 us \.\. 4\.00 us/);
});

test('zooming in widens the drawing, the labels stay, and the zoom is bounded', () => {
  const one = layoutTimeline(timeline, 1000, 1);
  const four = layoutTimeline(timeline, 1000, 4);
  assert.ok(Math.abs((four.width - LABEL_PX - 8) - 4 * (one.width - LABEL_PX - 8)) < 1e-6);
  assert.equal(stepZoom(1, -1), 1);
  assert.equal(stepZoom(2, 1), 4);
  assert.equal(stepZoom(MAX_ZOOM, 1), MAX_ZOOM);
});
