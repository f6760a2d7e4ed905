// The view's state transitions and which actions are open (src/logic/state.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { defaultFinalFile, initialState, reduce, whyNot } from '../lib/logic/state.js';

const KERNEL = 'kernel/gelu_kernel.cpp';
const file = path => ({ path });
const pass = (name, status, files = [file(KERNEL)], added = 5, removed = 1) => ({
  name, status, files, added, removed, seconds: 0.01
});
const payload = (statuses, ready = false) => ({
  passes: [
    pass('host', statuses[0], [file('CMakeLists.txt'), file('host/gelu_tiling.cpp'), file(KERNEL)]),
    pass('init', statuses[1]),
    pass('compute', statuses[2]),
    pass('align', statuses[3])
  ],
  final: { files: [file('CMakeLists.txt'), file(KERNEL)] },
  ready
});

const pending = payload(['pending', 'pending', 'pending', 'pending']);
const live = p => ({ ...initialState(p), link: 'live' });

test('the first pass to review is selected, its kernel file shown', () => {
  const s = initialState(payload(['accepted', 'pending', 'pending', 'pending']));
  assert.equal(s.selected, 'init');
  assert.equal(s.files.host, KERNEL);
  assert.equal(s.finalFile, KERNEL);
  assert.equal(s.link, 'read-only');
});

test('selecting and moving change the selection; editing holds it', () => {
  let s = live(pending);
  s = reduce(s, { type: 'select', step: 'compute' }, pending);
  assert.equal(s.selected, 'compute');
  s = reduce(s, { type: 'move', delta: 1 }, pending);
  assert.equal(s.selected, 'align');
  s = reduce(s, { type: 'edit', step: 'align' }, pending);
  assert.deepEqual(s.editing, { step: 'align', path: KERNEL });
  const held = reduce(s, { type: 'select', step: 'host' }, pending);
  assert.equal(held.selected, 'align');
  assert.match(held.error, /Save or cancel/);
  s = reduce(s, { type: 'edit-end' }, pending);
  assert.equal(s.editing, null);
});

test('a request makes the view busy until its reply; a failed reply shows its error', () => {
  let s = live(pending);
  s = reduce(s, { type: 'request', action: 'accept' }, pending);
  assert.equal(s.busy, 'accept');
  assert.match(whyNot('accept', s, pending), /waiting for accept/);
  s = reduce(s, { type: 'progress', text: 'compiling…' }, pending);
  assert.equal(s.info, 'compiling…');
  s = reduce(s, { type: 'reply', ok: false, error: 'error: pass 1 (host) failed' }, pending);
  assert.equal(s.busy, null);
  assert.equal(s.error, 'error: pass 1 (host) failed');
});

test('a saved edit closes the editor', () => {
  let s = reduce(live(pending), { type: 'edit', step: 'compute' }, pending);
  s = reduce(s, { type: 'request', action: 'edit' }, pending);
  s = reduce(s, { type: 'reply', ok: true }, pending);
  assert.equal(s.editing, null);
});

test('a new payload keeps the selection and chosen tabs, and bumps the revision', () => {
  let s = live(pending);
  s = reduce(s, { type: 'file', step: 'host', path: 'CMakeLists.txt' }, pending);
  s = reduce(s, { type: 'select', step: 'compute' }, pending);
  const next = payload(['accepted', 'pending', 'pending', 'pending']);
  const after = reduce(s, { type: 'payload', payload: next }, next);
  assert.equal(after.selected, 'compute');
  assert.equal(after.files.host, 'CMakeLists.txt');
  assert.equal(after.revision, s.revision + 1);
});

test('actions open by step status', () => {
  const p = payload(['accepted', 'edited', 'pending', 'failed']);
  const at = step => ({ ...live(p), selected: step });
  assert.equal(whyNot('accept', at('compute'), p), null);
  assert.match(whyNot('accept', at('host'), p), /already accepted/);
  assert.match(whyNot('accept', at('align'), p), /failed step cannot be accepted/);
  assert.equal(whyNot('undo', at('init'), p), null);
  assert.match(whyNot('undo', at('compute'), p), /nothing to undo/);
  assert.equal(whyNot('undo', at('align'), p), null, 'a failed step may hold an edit to drop');
  assert.equal(whyNot('edit', at('align'), p), null);
  assert.match(whyNot('compile', at('host'), p), /accept or edit every step/);
  const ready = payload(['accepted', 'edited', 'accepted', 'unchanged'], true);
  assert.equal(whyNot('compile', { ...live(ready), selected: 'host' }, ready), null);
});

test('without a live kernel every action explains that the view is read-only', () => {
  const s = initialState(pending);
  assert.match(whyNot('accept', s, pending), /read-only/);
  const gone = reduce({ ...s, link: 'live', busy: 'compile' }, { type: 'link', state: 'no-kernel' }, pending);
  assert.equal(gone.busy, null);
  assert.match(whyNot('compile', gone, pending), /no kernel/);
});

test('focusing a DSL line twice clears it', () => {
  let s = reduce(live(pending), { type: 'focus', dsl: 19 }, pending);
  assert.equal(s.focusDsl, 19);
  s = reduce(s, { type: 'focus', dsl: 19 }, pending);
  assert.equal(s.focusDsl, 0);
});

test('the final project opens on the kernel source', () => {
  assert.equal(defaultFinalFile(['CMakeLists.txt', 'host/x.cpp', 'kernel/x_kernel.cpp']), 'kernel/x_kernel.cpp');
  assert.equal(defaultFinalFile(['CMakeLists.txt']), 'CMakeLists.txt');
  assert.equal(defaultFinalFile([]), null);
});
