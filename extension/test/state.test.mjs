// The view's state transitions and which actions are open (src/logic/state.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionTitle, defaultFinalFile, initialState, reduce, sideStatus, whyNot } from '../lib/logic/state.js';

const KERNEL = 'kernel/gelu_kernel.cpp';
const file = path => ({ path });
// An action as Python's view model sends it: open, or closed with its reason.
const open = does => ({ enabled: true, does, why_not: '' });
const closed = why => ({ enabled: false, does: 'what it would do', why_not: why });
// Per status, the step actions the view model opens (ascendcraft_lab/notebook/viewmodel.py).
const STEP_ACTIONS = {
  pending: { accept: open('accept it'), edit: open('edit it'), undo: closed('nothing to undo'), regenerate: open('again') },
  accepted: { accept: closed('already accepted'), edit: open('edit it'), undo: open('withdraw'), regenerate: open('again') },
  edited: { accept: closed('your edit is the output'), edit: open('edit it'), undo: open('drop the edit'), regenerate: open('again') },
  failed: { accept: closed('a failed step cannot be accepted'), edit: open('edit it'), undo: closed('holds no edit of yours'),
    regenerate: open('again') },
  unchanged: { accept: closed('changed nothing'), edit: closed('changed no file'), undo: closed('changed nothing'),
    regenerate: open('again') }
};
const pass = (name, status, files = [file(KERNEL)], added = 5, removed = 1) => ({
  name, status, files, added, removed, seconds: 0.01, unchanged: status === 'unchanged', actions: STEP_ACTIONS[status]
});
const payload = (statuses, ready = false, reviewNext = undefined) => ({
  passes: [
    pass('host', statuses[0], [file('CMakeLists.txt'), file('host/gelu_tiling.cpp'), file(KERNEL)]),
    pass('init', statuses[1]),
    pass('compute', statuses[2]),
    pass('align', statuses[3])
  ],
  final: { files: [file('CMakeLists.txt'), file(KERNEL)] },
  actions: ready
    ? { compile: open('compile it'), profile: open('profile it') }
    : { compile: closed('accept or edit every step first'), profile: closed('accept or edit every step first') },
  review_next:
    reviewNext !== undefined ? reviewNext : (['host', 'init', 'compute', 'align'].find((_, i) => ['pending', 'failed'].includes(statuses[i])) ?? null)
});

const pending = payload(['pending', 'pending', 'pending', 'pending']);
const live = p => ({ ...initialState(p), link: 'live' });

test("the view model's first pass to review is selected, its kernel file shown", () => {
  const s = initialState(payload(['accepted', 'pending', 'pending', 'pending']));
  assert.equal(s.selected, 'init');
  assert.equal(initialState(payload(['accepted', 'pending', 'pending', 'pending'], false, 'compute')).selected, 'compute');
  assert.equal(initialState(payload(['accepted', 'accepted', 'accepted', 'accepted'], true, null)).selected, 'host');
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

test("a live, idle view opens exactly the actions the view model opens, with its reasons", () => {
  const p = payload(['accepted', 'edited', 'pending', 'failed']);
  for (const step of ['host', 'init', 'compute', 'align']) {
    const s = { ...live(p), selected: step };
    const actions = p.passes.find(x => x.name === step).actions;
    for (const [name, a] of Object.entries(actions)) {
      assert.equal(whyNot(name, s, p), a.enabled ? null : a.why_not, `${name} on ${step}`);
      assert.equal(actionTitle(name, s, p), a.enabled ? a.does : a.why_not, `${name} on ${step}`);
    }
  }
  // Undo of a failed step is Python's call: here the step holds no edit, so it stays closed.
  assert.match(whyNot('undo', { ...live(p), selected: 'align' }, p), /holds no edit of yours/);
  assert.match(whyNot('compile', { ...live(p), selected: 'host' }, p), /accept or edit every step/);
  const ready = payload(['accepted', 'edited', 'accepted', 'unchanged'], true);
  assert.equal(whyNot('compile', { ...live(ready), selected: 'host' }, ready), null);
  assert.equal(actionTitle('profile', { ...live(ready), selected: 'host' }, ready), 'profile it');
});

test("the view's own state closes actions the view model opens: an open editor, no pass selected", () => {
  const p = payload(['pending', 'pending', 'pending', 'pending']);
  const editing = reduce(live(p), { type: 'edit', step: 'compute' }, p);
  assert.match(whyNot('accept', editing, p), /Save or cancel the edit first/);
  assert.equal(whyNot('edit', editing, p), 'already editing');
  const none = { ...live(p), selected: null };
  assert.equal(whyNot('accept', none, p), 'select a pass');
  assert.equal(whyNot('compile', none, p), 'accept or edit every step first');
  const refused = reduce(live(p), { type: 'edit', step: 'host' }, payload(['unchanged', 'pending', 'pending', 'pending']));
  assert.equal(refused.editing, null);
  assert.equal(refused.error, 'changed no file');
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

test('the status line under the buttons says the request in flight, then its verdict where the click was', () => {
  const status = { state: 'ready', text: 'every step is reviewed: Compile & verify runs it' };
  const idle = { busy: null, error: null, info: null };
  assert.deepEqual(sideStatus(idle, { status, verdict: null }), status);
  assert.deepEqual(sideStatus({ ...idle, busy: 'compile', info: 'compiling on the emulator…\nmore' }, { status, verdict: null }),
    { state: 'busy', text: 'compiling on the emulator…' });
  const verdict = { correct: true, message: 'correct: `gelu` matches the reference', current: true };
  assert.deepEqual(sideStatus(idle, { status, verdict }),
    { state: 'verified', text: '✓ verified: correct: `gelu` matches the reference (details below)' });
  assert.equal(sideStatus(idle, { status, verdict: { ...verdict, correct: false } }).state, 'wrong');
  // a verdict the steps no longer match: the view model's status line (stale) says what to do
  const stale = { state: 'stale', text: 'the steps changed since the last run: compile & verify again' };
  assert.deepEqual(sideStatus(idle, { status: stale, verdict: { ...verdict, current: false } }), stale);
  assert.deepEqual(sideStatus({ ...idle, error: 'error: pass 3 failed\n  = help: x' }, { status, verdict }),
    { state: 'error', text: 'pass 3 failed' });
});
