/**
 * The view's own state (what is selected and shown, what is in flight, the link to the kernel)
 * and its transitions, as a pure reducer. Whether an action is open on a step, and why not, is
 * Python's view model (the payload's `actions`, ascendcraft_lab/notebook/viewmodel.py): this
 * adds only what the view itself knows — no kernel, a request in flight, an open editor.
 */
import type { ActionName, IAction, PipelineActionName, StepActionName } from '../tokens.js';
import { IPassLike, keepSelection, moveSelection, visiblePasses } from './passes.js';

export type Layout = 'split' | 'unified';
export type LinkState = 'read-only' | 'connecting' | 'live' | 'no-kernel' | 'unavailable';
export type { ActionName };

export interface IPayloadLike {
  passes: (IPassLike & { files: { path: string }[]; actions: { [a in StepActionName]: IAction } })[];
  final: { files: { path: string }[] } | null;
  actions: { [a in PipelineActionName]: IAction };
  review_next: string | null;
}

export interface IViewState {
  selected: string | null;
  hideUnchanged: boolean;
  layout: Layout;
  /** The file tab shown per pass. */
  files: { [step: string]: string };
  finalFile: string | null;
  editing: { step: string; path: string } | null;
  /** The request in flight, if any: one at a time. */
  busy: string | null;
  error: string | null;
  info: string | null;
  link: LinkState;
  linkReason: string;
  /** The pinned DSL line whose relatives are outlined in every pane (0: none). */
  focusDsl: number;
  /** Bumped by every new payload: a body fetched for an older one is dropped. */
  revision: number;
}

export type ViewEvent =
  | { type: 'payload'; payload: IPayloadLike }
  | { type: 'select'; step: string }
  | { type: 'move'; delta: number }
  | { type: 'toggle-unchanged' }
  | { type: 'layout'; layout?: Layout }
  | { type: 'file'; step: string; path: string }
  | { type: 'final-file'; path: string }
  | { type: 'edit'; step: string; path?: string }
  | { type: 'edit-end' }
  | { type: 'request'; action: string }
  | { type: 'reply'; ok: boolean; error?: string; info?: string }
  | { type: 'progress'; text: string }
  | { type: 'link'; state: LinkState; reason?: string }
  | { type: 'focus'; dsl: number }
  | { type: 'dismiss' };

const FINISH_EDIT = 'Save or cancel the edit first.';

/** The first state for a payload: the pass the view model says needs review first is selected. */
export function initialState(payload: IPayloadLike, link: LinkState = 'read-only'): IViewState {
  const first = payload.passes.find(p => p.name === payload.review_next) || payload.passes[0];
  return withPayload(
    {
      selected: first ? first.name : null,
      hideUnchanged: false,
      layout: 'split',
      files: {},
      finalFile: null,
      editing: null,
      busy: null,
      error: null,
      info: null,
      link,
      linkReason: '',
      focusDsl: 0,
      revision: 0
    },
    payload
  );
}

/** The default tab of the final project: the kernel source, where the work is. */
export function defaultFinalFile(paths: readonly string[]): string | null {
  return paths.find(p => /kernel\/.*\.cpp$/.test(p)) || paths.find(p => p.endsWith('.cpp')) || paths[0] || null;
}

function withPayload(state: IViewState, payload: IPayloadLike): IViewState {
  const visible = visiblePasses(payload.passes, state.hideUnchanged);
  const selected = keepSelection(payload.passes, visible, state.selected);
  const files: { [step: string]: string } = {};
  for (const p of payload.passes) {
    const paths = p.files.map(f => f.path);
    const chosen = state.files[p.name];
    const kernel = defaultFinalFile(paths);
    files[p.name] = chosen && paths.includes(chosen) ? chosen : kernel || '';
  }
  const finalPaths = payload.final ? payload.final.files.map(f => f.path) : [];
  const finalFile =
    state.finalFile && finalPaths.includes(state.finalFile) ? state.finalFile : defaultFinalFile(finalPaths);
  let editing = state.editing;
  if (editing && !payload.passes.some(p => p.name === editing!.step && p.files.some(f => f.path === editing!.path))) {
    editing = null;
  }
  return { ...state, selected, files, finalFile, editing, revision: state.revision + 1 };
}

export function reduce(state: IViewState, event: ViewEvent, payload: IPayloadLike): IViewState {
  switch (event.type) {
    case 'payload':
      return withPayload(state, event.payload);
    case 'select':
      if (state.editing && event.step !== state.editing.step) {
        return { ...state, error: FINISH_EDIT };
      }
      return payload.passes.some(p => p.name === event.step) ? { ...state, selected: event.step } : state;
    case 'move': {
      if (state.editing) {
        return { ...state, error: FINISH_EDIT };
      }
      const visible = visiblePasses(payload.passes, state.hideUnchanged);
      return { ...state, selected: moveSelection(visible, state.selected, event.delta) };
    }
    case 'toggle-unchanged': {
      const hideUnchanged = !state.hideUnchanged;
      const visible = visiblePasses(payload.passes, hideUnchanged);
      const selected = state.editing ? state.selected : keepSelection(payload.passes, visible, state.selected);
      return { ...state, hideUnchanged, selected };
    }
    case 'layout':
      return { ...state, layout: event.layout || (state.layout === 'split' ? 'unified' : 'split') };
    case 'file':
      if (state.editing && state.editing.step === event.step) {
        return { ...state, editing: { ...state.editing, path: event.path }, files: { ...state.files, [event.step]: event.path } };
      }
      return { ...state, files: { ...state.files, [event.step]: event.path } };
    case 'final-file':
      return { ...state, finalFile: event.path };
    case 'edit': {
      const why = whyNot('edit', { ...state, selected: event.step }, payload);
      if (why) {
        return { ...state, error: why };
      }
      const path = event.path || state.files[event.step];
      return { ...state, selected: event.step, editing: { step: event.step, path }, error: null, info: null };
    }
    case 'edit-end':
      return { ...state, editing: null };
    case 'request':
      return { ...state, busy: event.action, error: null, info: null };
    case 'reply': {
      const done = event.ok && state.busy === 'edit';
      return {
        ...state,
        busy: null,
        error: event.ok ? null : event.error || 'the request failed',
        info: event.ok ? event.info || null : null,
        editing: done ? null : state.editing
      };
    }
    case 'progress':
      return { ...state, info: event.text };
    case 'link':
      return {
        ...state,
        link: event.state,
        linkReason: event.reason || '',
        busy: event.state === 'live' ? state.busy : null
      };
    case 'focus':
      return { ...state, focusDsl: event.dsl === state.focusDsl ? 0 : Math.max(0, event.dsl) };
    case 'dismiss':
      return { ...state, error: null, info: null };
  }
  return state;
}

/** The view model's verdict on `action` for the selected pass (or the pipeline), or null with no pass selected. */
export function actionOf(action: ActionName, state: IViewState, payload: IPayloadLike): IAction | null {
  if (action === 'compile' || action === 'profile') {
    return payload.actions[action];
  }
  const pass = payload.passes.find(p => p.name === state.selected);
  return pass ? pass.actions[action] : null;
}

/** Why `action` cannot be taken now, or null when it can. */
export function whyNot(action: ActionName, state: IViewState, payload: IPayloadLike): string | null {
  if (state.link !== 'live') {
    return linkExplanation(state);
  }
  if (state.busy) {
    return `waiting for ${state.busy} to finish`;
  }
  if (state.editing) {
    return action === 'edit' ? 'already editing' : FINISH_EDIT;
  }
  const a = actionOf(action, state, payload);
  if (!a) {
    return 'select a pass';
  }
  return a.enabled ? null : a.why_not;
}

/** A button's tooltip: why it is closed, or what it does (the view model's words). */
export function actionTitle(action: ActionName, state: IViewState, payload: IPayloadLike): string {
  return whyNot(action, state, payload) ?? actionOf(action, state, payload)?.does ?? '';
}

export function linkExplanation(state: IViewState): string {
  switch (state.link) {
    case 'connecting':
      return 'connecting to the kernel…';
    case 'no-kernel':
      return 'read-only: no kernel is running for this notebook';
    case 'unavailable':
      return `read-only: ${state.linkReason || 'the kernel cannot reach AscendCraft Lab'}`;
    case 'read-only':
      return state.linkReason || 'read-only: this output is not connected to a kernel';
    default:
      return '';
  }
}

/** What the status line in the pass list says, under the buttons a person just clicked: the
 * request in flight, its error, the last current verdict, else the view model's status line. */
export interface ISideStatus {
  state: string;
  text: string;
}

export function sideStatus(
  state: Pick<IViewState, 'busy' | 'error' | 'info'>,
  payload: {
    status: { state: string; text: string };
    verdict: { correct: boolean; message: string; current: boolean } | null;
  }
): ISideStatus {
  if (state.busy) {
    return { state: 'busy', text: (state.info || `${state.busy}…`).split('\n')[0] };
  }
  if (state.error) {
    return { state: 'error', text: state.error.split('\n')[0].replace(/^error:\s*/, '') };
  }
  const v = payload.verdict;
  if (v && v.current) {
    return {
      state: v.correct ? 'verified' : 'wrong',
      text: `${v.correct ? '✓ verified' : '✗ not verified'}: ${v.message} (details below)`
    };
  }
  return { state: payload.status.state, text: payload.status.text };
}
