// Pass filtering, moving the selection and the labels (src/logic/passes.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  formatSeconds,
  keepSelection,
  moveSelection,
  statLabel,
  visiblePasses
} from '../lib/logic/passes.js';

// `unchanged` is the view model's (Python's) word on each pass: a failed pass never is.
const pass = (name, status, added = 3, removed = 1, seconds = 0.012, unchanged = status === 'unchanged') => ({
  name, status, added, removed, seconds, unchanged
});
const passes = [
  pass('host', 'accepted', 161, 0),
  pass('init', 'unchanged', 0, 0),
  pass('compute', 'pending', 59, 10),
  pass('align', 'failed', 0, 0)
];

test('hide unchanged drops the passes the view model calls unchanged, and only those', () => {
  assert.deepEqual(visiblePasses(passes, true).map(p => p.name), ['host', 'compute', 'align']);
  assert.deepEqual(visiblePasses(passes, false).map(p => p.name), ['host', 'init', 'compute', 'align']);
  const pendingNoChange = pass('x', 'pending', 0, 0, 0.01, true);
  assert.deepEqual(visiblePasses([pendingNoChange, pass('y', 'not-run', 0, 0)], true).map(p => p.name), ['y']);
});

test('the selection stays when visible, else moves to the next visible pass', () => {
  const visible = visiblePasses(passes, true);
  assert.equal(keepSelection(passes, visible, 'compute'), 'compute');
  assert.equal(keepSelection(passes, visible, 'init'), 'compute');
  assert.equal(keepSelection(passes, [passes[0]], 'align'), 'host');
  assert.equal(keepSelection(passes, [], 'host'), null);
});

test('up and down move within the visible passes and stop at the ends', () => {
  const visible = visiblePasses(passes, true);
  assert.equal(moveSelection(visible, 'host', 1), 'compute');
  assert.equal(moveSelection(visible, 'compute', -1), 'host');
  assert.equal(moveSelection(visible, 'align', 1), 'align');
  assert.equal(moveSelection(visible, 'host', -1), 'host');
  assert.equal(moveSelection(visible, null, -1), 'align');
});

test('labels: +N -M, no change, not run', () => {
  assert.equal(statLabel(passes[0]), '+161 -0');
  assert.equal(statLabel(passes[1]), 'no change');
  assert.equal(statLabel(pass('x', 'not-run', 0, 0)), 'not run');
});

test('seconds read as people read them', () => {
  assert.equal(formatSeconds(0.00084), '840 µs');
  assert.equal(formatSeconds(0.0126), '13 ms');
  assert.equal(formatSeconds(0.0042), '4.2 ms');
  assert.equal(formatSeconds(1.44), '1.4 s');
  assert.equal(formatSeconds(0), '');
});
