// Line colouring from a source map (src/logic/colours.ts, compiled to lib/).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { colourOf, dslLineAt, dslPaneColours, lineColours, relatives, tinted } from '../lib/logic/colours.js';

const table = { dsl_colors: { 5: '#e8dff5', 6: '#d7f3f5' }, palette: ['#fde2e4', '#e2ece9', '#dfe7fd'] };

test('a line takes the colour Python gave its DSL line', () => {
  assert.deepEqual(lineColours([5, 6, 5], table), ['#e8dff5', '#d7f3f5', '#e8dff5']);
});

test('boilerplate (DSL line 0) stays uncoloured', () => {
  assert.deepEqual(lineColours([0, 5, 0], table), [null, '#e8dff5', null]);
});

test('a DSL line without its own colour falls back to the palette, cycling', () => {
  assert.equal(colourOf(1, table), '#fde2e4');
  assert.equal(colourOf(4, table), '#fde2e4');
  assert.equal(colourOf(3, { dsl_colors: {}, palette: [] }), null);
});

test('the DSL pane colours only the lines that produced C++', () => {
  assert.deepEqual(dslPaneColours(7, table), [null, null, null, null, '#e8dff5', '#d7f3f5', null]);
});

test('relatives are the 1-based lines that came from one DSL line', () => {
  assert.deepEqual(relatives([0, 19, 19, 20, 19], 19), [2, 3, 5]);
  assert.deepEqual(relatives([0, 19], 0), []);
});

test('the DSL line under an editor line, 0 outside the map', () => {
  assert.equal(dslLineAt([0, 19, 20], 2), 19);
  assert.equal(dslLineAt([0, 19, 20], 9), 0);
  assert.equal(dslLineAt([0, 19, 20], 0), 0);
});

test('a tint leaves the theme to choose how strong the colour is', () => {
  assert.match(tinted('#e8dff5'), /^color-mix\(in srgb, #e8dff5 var\(--acl-line-tint, 100%\), transparent\)$/);
});
