// The pane layout preferences: auto stacking, splitter drags, reading settings (src/logic/layout.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  DEFAULT_PREFS,
  MIN_PANE_WIDTH,
  arrange,
  clampHeight,
  dragSplitter,
  gridColumns,
  readPrefs,
  toFractions
} from '../lib/logic/layout.js';

test('auto stacks the panes below the width threshold and lays them in columns from it on', () => {
  const auto = { paneLayout: 'auto', stackBelow: 1600 };
  assert.equal(arrange(auto, 843), 'stacked'); // a notebook's output at 1280 px
  assert.equal(arrange(auto, 1599), 'stacked');
  assert.equal(arrange(auto, 1600), 'columns');
  assert.equal(arrange(auto, 0), 'stacked', 'not measured yet: stacked, which cuts nothing off');
});

test('columns and stacked hold whatever the width', () => {
  assert.equal(arrange({ paneLayout: 'columns', stackBelow: 1600 }, 400), 'columns');
  assert.equal(arrange({ paneLayout: 'stacked', stackBelow: 1600 }, 3000), 'stacked');
});

test('a splitter drag moves width between the two panes beside it only', () => {
  assert.deepEqual(dragSplitter([300, 600, 400], 0, 100), [400, 500, 400]);
  assert.deepEqual(dragSplitter([300, 600, 400], 1, -50), [300, 550, 450]);
});

test('no pane is dragged narrower than the minimum, and the pair keeps its width', () => {
  const [a, b, c] = dragSplitter([300, 600, 400], 0, -1000);
  assert.equal(a, MIN_PANE_WIDTH);
  assert.equal(a + b, 900);
  assert.equal(c, 400);
  assert.deepEqual(dragSplitter([300, 600, 400], 1, 5000), [300, 1000 - MIN_PANE_WIDTH, MIN_PANE_WIDTH]);
});

test('panes too narrow to trade width, or a splitter that does not exist, change nothing', () => {
  assert.deepEqual(dragSplitter([100, 150, 400], 0, 40), [100, 150, 400]);
  assert.deepEqual(dragSplitter([300, 600, 400], 2, 40), [300, 600, 400]);
});

test('widths are stored as fractions of the row, in 0.1 % steps', () => {
  assert.deepEqual(toFractions([250, 450, 300]), [0.25, 0.45, 0.3]);
  assert.deepEqual(toFractions([1, 1, 1]), [0.333, 0.333, 0.333]);
  assert.deepEqual(toFractions([0, 0, 0]), DEFAULT_PREFS.columnWidths);
});

test('the grid has a splitter track between every two panes', () => {
  assert.equal(gridColumns([0.25, 0.45, 0.3], 6), 'minmax(0, 0.25fr) 6px minmax(0, 0.45fr) 6px minmax(0, 0.3fr)');
});

test('settings are read with every invalid value replaced by its default', () => {
  assert.deepEqual(readPrefs(undefined), DEFAULT_PREFS);
  const read = readPrefs({
    paneLayout: 'sideways',
    wrapLines: 'yes',
    columnWidths: [1, -2, 3],
    paneHeight: 'tall',
    stackBelow: -5
  });
  assert.deepEqual(read, DEFAULT_PREFS);
});

test('valid settings are kept: widths normalised, the height clamped to its range', () => {
  const read = readPrefs({ paneLayout: 'stacked', wrapLines: true, columnWidths: [1, 2, 1], paneHeight: 90, stackBelow: 900 });
  assert.deepEqual(read, { paneLayout: 'stacked', wrapLines: true, columnWidths: [0.25, 0.5, 0.25], paneHeight: 160, stackBelow: 900 });
  assert.equal(clampHeight(99999), 2000);
  assert.equal(clampHeight(432.6), 433);
});

test("the settings schema's defaults are the view's defaults", () => {
  const schema = JSON.parse(readFileSync(new URL('../schema/pipeline.json', import.meta.url), 'utf8'));
  const defaults = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, v.default]));
  assert.deepEqual(defaults, DEFAULT_PREFS);
});
