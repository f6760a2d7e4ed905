/**
 * Names and shapes shared by the plugin, the model and the views: the MIME type, the comm
 * protocol, the command ids with their JSON-schema arguments, and the pipeline payload
 * (ascendcraft_lab/notebook/schema.json, docs/pipeline-mime.md). No runtime imports: the pure
 * logic modules and their node tests use these types too.
 */

export const MIME_TYPE = 'application/vnd.ascendcraft.pipeline+json';
export const SCHEMA_VERSION = 2;
export const COMM_TARGET = 'ascendcraft.pipeline';
export const PROTOCOL_VERSION = 1;
/** Registers the comm target in a Python kernel; silent, leaves no name behind. */
export const REGISTER_CODE =
  "__import__('ascendcraft_lab.notebook.comm', fromlist=['register_comm_target']).register_comm_target()";
/** Above the ipywidgets view (-10): the bundle carries both, this one is the richer. */
export const RENDERER_RANK = -20;

export type StepStatus = 'pending' | 'accepted' | 'edited' | 'failed' | 'unchanged' | 'not-run';
export type Side = 'before' | 'after' | 'final' | 'dsl';

/** A text with, per line, the DSL line it came from (0: boilerplate). */
export interface IBody {
  text: string;
  lines: number;
  shown_lines: number;
  truncated: boolean;
  omitted: boolean;
  dsl_lines: number[];
  /** Only in `fetch_body` replies: the file does not exist on that side. */
  missing?: boolean;
}

export interface IFileChange {
  path: string;
  change: 'added' | 'modified' | 'removed';
  added: number;
  removed: number;
  before: IBody | null;
  after: IBody | null;
}

export interface IFinding {
  pass_name: string;
  kind: string;
  message: string;
  path: string;
  line: number;
  dsl_line: number;
  help?: string;
  severity: 'error' | 'warning' | 'note';
  text: string;
}

export interface IConflict {
  path: string;
  line: number;
  ours: string[];
  theirs: string[];
}

/**
 * One button as Python's view model decides it (ascendcraft_lab/notebook/viewmodel.py): a view
 * shows `does` as the tooltip of an open button and `why_not` as that of a closed one.
 */
export interface IAction {
  enabled: boolean;
  does: string;
  why_not: string;
}

export type StepActionName = 'accept' | 'edit' | 'undo' | 'regenerate';
export type PipelineActionName = 'compile' | 'profile';
export type ActionName = StepActionName | PipelineActionName;

export interface IPass {
  number: number;
  name: string;
  status: StepStatus;
  /** The status as a person reads it ("to review"). */
  label: string;
  stat: string;
  added: number;
  removed: number;
  /** The pass changed nothing: "hide unchanged" hides it (never a failed or not-run pass). */
  unchanged: boolean;
  engine: string;
  seconds: number;
  reason: string;
  explain: string;
  findings: IFinding[];
  conflicts: IConflict[];
  notes: string[];
  files: IFileChange[];
  actions: { [action in StepActionName]: IAction };
  /** Null for the rule engine; what the LLM engine did for this step. */
  report?: {
    model?: string;
    engine?: string;
    attempts?: number;
    best_round?: number;
    stopped?: string;
    tokens_in?: number;
    tokens_out?: number;
    requests?: number;
    cached_calls?: number;
  } | null;
}

export interface IRunFinding {
  kind?: string;
  message?: string;
  file?: string | null;
  line?: number | null;
  dsl_line?: number | null;
  block?: number | null;
  count?: number | null;
  api?: string | null;
}

export interface IVerdict {
  correct: boolean;
  message: string;
  summary: string;
  detail: string;
  backend: string;
  soc: string;
  max_abs_err: number | null;
  max_rel_err: number | null;
  status: string;
  findings: IRunFinding[];
  timings: { [key: string]: number | boolean };
  current: boolean;
  record: string;
}

export interface IPipelinePayload {
  version: number;
  session: {
    name: string;
    folder: string;
    kernel: string;
    soc: string;
    engine: string;
    until: string | null;
    reference: string | null;
  };
  dsl: IBody & { path: string };
  passes: IPass[];
  final: { files: { path: string; body: IBody }[] } | null;
  ready: boolean;
  actions: { [action in PipelineActionName]: IAction };
  /** Where the pipeline stands and what to do next, in one line. */
  status: { state: string; text: string };
  /** The first pass that needs review: a view selects it first. */
  review_next: string | null;
  /** The cell's DSL draft did not lower: its diagnostic and line (the rest is the session as it was). */
  draft_error?: { text: string; line: number } | null;
  verdict: IVerdict | null;
  tiling: {
    launch?: { [key: string]: unknown };
    budget?: number;
    total?: number;
    buffers?: { [key: string]: unknown }[];
    candidates?: string[];
    /** The candidates not taken and any ranking by the estimate, as the CLI prints them. */
    alternatives?: string[];
  } | null;
  dsl_colors: { [line: string]: string };
  palette: string[];
  notes: string[];
  timings: { [key: string]: number | boolean };
  limits: { max_body_chars: number; max_total_chars: number; truncated: boolean };
}

/** What the view sends to the kernel (ascendcraft_lab/notebook/comm.py). */
export type Action =
  | 'state'
  | 'accept'
  | 'edit'
  | 'undo'
  | 'regenerate'
  | 'compile'
  | 'profile'
  | 'fetch_body'
  | 'bundle';

export interface IRequest {
  action: Action;
  session: string;
  step?: string;
  files?: { [path: string]: string };
  backend?: string;
  path?: string;
  side?: Side;
  full?: boolean;
}

/** One pipe of one block: its spans [start s, end s, API, kernel line] (perf/report.py: timeline_data). */
export interface ITimelinePipe {
  pipe: string;
  spans: [number, number, string, number][];
}

/** The ESTIMATED pipe timelines of a profile's first blocks, on one time axis (seconds). */
export interface ITimeline {
  estimate: boolean;
  end: number;
  blocks: { label: string; elapsed: number; pipes: ITimelinePipe[] }[];
}

export interface IReply {
  id: number;
  ok: boolean;
  error?: string;
  payload?: IPipelinePayload;
  body?: IBody;
  profile?: string;
  /** The profile's pipe timelines (ESTIMATED): the first blocks' spans per pipe. */
  timeline?: ITimeline;
  /** The cell's MIME bundle (payload with bodies, text/html, text/plain), to store in the output. */
  bundle?: { [mime: string]: unknown };
  /** Set by the link, not the kernel: the connection went away before a reply. */
  gone?: boolean;
}

export interface IEventMessage {
  event: 'hello' | 'progress' | 'changed';
  id?: number;
  text?: string;
  session?: string;
  payload?: IPipelinePayload;
  version?: number;
}

/** The link of one notebook to its kernel, as the model sees it. */
export type LinkStatus = 'read-only' | 'connecting' | 'live' | 'no-kernel' | 'unavailable';

export namespace CommandIDs {
  export const selectStep = 'ascendcraft:select-step';
  export const nextStep = 'ascendcraft:next-step';
  export const previousStep = 'ascendcraft:previous-step';
  export const toggleUnchanged = 'ascendcraft:toggle-unchanged';
  export const toggleLayout = 'ascendcraft:toggle-layout';
  export const acceptStep = 'ascendcraft:accept-step';
  export const editStep = 'ascendcraft:edit-step';
  export const saveEdit = 'ascendcraft:save-edit';
  export const cancelEdit = 'ascendcraft:cancel-edit';
  export const undoStep = 'ascendcraft:undo-step';
  export const regenerateStep = 'ascendcraft:regenerate-step';
  export const compile = 'ascendcraft:compile';
  export const profile = 'ascendcraft:profile';
  export const focusDslLine = 'ascendcraft:focus-dsl-line';
  export const toggleWrap = 'ascendcraft:toggle-wrap';
  export const setPaneLayout = 'ascendcraft:set-pane-layout';
  export const openInTab = 'ascendcraft:open-in-tab';
}

const session = {
  type: 'string',
  description:
    'The session folder (the payload\'s session.folder); default: the pipeline view used last'
};
const step = {
  type: 'string',
  enum: ['host', 'init', 'compute', 'align'],
  description: 'The pass; default: the selected one'
};

/** Every command, its label and the JSON schema of its arguments. */
export const COMMANDS: {
  [id: string]: { label: string; caption: string; args: { [key: string]: unknown } };
} = {
  [CommandIDs.selectStep]: {
    label: 'Select Pipeline Step',
    caption: 'Show a pass in the pipeline view',
    args: { type: 'object', properties: { session, step }, required: ['step'] }
  },
  [CommandIDs.nextStep]: {
    label: 'Next Pipeline Step',
    caption: 'Select the next visible pass',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.previousStep]: {
    label: 'Previous Pipeline Step',
    caption: 'Select the previous visible pass',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.toggleUnchanged]: {
    label: 'Hide Unchanged Passes',
    caption: 'Hide the passes that changed nothing',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.toggleLayout]: {
    label: 'Unified Diff',
    caption: 'Show the step as one unified diff instead of side by side',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.acceptStep]: {
    label: 'Accept',
    caption: 'Accept the step as generated',
    args: { type: 'object', properties: { session, step } }
  },
  [CommandIDs.editStep]: {
    label: 'Edit',
    caption: "Edit the step's output (unified merge editor; later steps are re-derived and merged)",
    args: {
      type: 'object',
      properties: { session, step, path: { type: 'string', description: 'The file to edit first' } }
    }
  },
  [CommandIDs.saveEdit]: {
    label: 'Save Edit',
    caption: 'Send the edit to the kernel (no change: accept as generated)',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.cancelEdit]: {
    label: 'Cancel Edit',
    caption: 'Close the editor without saving',
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.undoStep]: {
    label: 'Undo',
    caption: 'Drop the edit of the step, or withdraw its acceptance',
    args: { type: 'object', properties: { session, step } }
  },
  [CommandIDs.regenerateStep]: {
    label: 'Regenerate',
    caption: 'Run the pass again from the previous step',
    args: { type: 'object', properties: { session, step } }
  },
  [CommandIDs.compile]: {
    label: 'Compile & verify',
    caption: 'Compile the AscendC project and compare it with the PyTorch reference',
    args: {
      type: 'object',
      properties: {
        session,
        backend: { type: 'string', enum: ['emulator', 'cann'], default: 'emulator' }
      }
    }
  },
  [CommandIDs.profile]: {
    label: 'Profile',
    caption:
      "ESTIMATED kernel time from the pipe model of the emulator's trace (not a measurement): the bound pipe, what to try next, the pipe timeline",
    args: { type: 'object', properties: { session } }
  },
  [CommandIDs.focusDslLine]: {
    label: 'Focus DSL Line',
    caption: 'Highlight one DSL line and the C++ lines it produced in every pane',
    args: {
      type: 'object',
      properties: { session, line: { type: 'integer', minimum: 0, description: '0 clears' } },
      required: ['line']
    }
  },
  [CommandIDs.toggleWrap]: {
    label: 'Wrap Long Lines in the Pipeline View',
    caption: 'Wrap lines longer than their pane instead of scrolling sideways (every pipeline view)',
    args: { type: 'object', properties: {} }
  },
  [CommandIDs.setPaneLayout]: {
    label: 'Pipeline Pane Layout',
    caption: 'Lay the code panes out side by side, stacked, or by the width of the view (every pipeline view)',
    args: {
      type: 'object',
      properties: {
        layout: {
          type: 'string',
          enum: ['auto', 'columns', 'stacked'],
          description: 'columns: side by side; stacked: one above the other; auto: stacked when the view is narrow'
        }
      },
      required: ['layout']
    }
  },
  [CommandIDs.openInTab]: {
    label: 'Open Pipeline in a Tab',
    caption: "Open the session's pipeline view in its own main-area tab (live, like the cell's)",
    args: { type: 'object', properties: { session } }
  }
};
