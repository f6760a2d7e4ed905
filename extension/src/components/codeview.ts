/**
 * CodeMirror 6 views over JupyterLab's own CodeMirror packages: a read-only pane, the step's
 * diff (`MergeView` side by side or `unifiedMergeView`), and the edit merge editor with
 * per-chunk accept/reject. Every read-only line is coloured by its DSL line; hovering a line
 * reports its DSL line, and `setFocus` outlines the lines of one DSL line. Line wrapping is
 * a compartment, so `setWrap` switches it in place (scroll position, edit history kept).
 */
import { history, historyKeymap, defaultKeymap, indentWithTab } from '@codemirror/commands';
import { LanguageSupport } from '@codemirror/language';
import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { Compartment, EditorState, Extension, RangeSetBuilder, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  GutterMarker,
  gutter,
  highlightActiveLine,
  keymap,
  lineNumbers
} from '@codemirror/view';
import { jupyterTheme } from '@jupyterlab/codemirror';

import { dslLineAt, tinted } from '../logic/colours';

/** A text and, per line, its DSL line and background. */
export interface IPaneText {
  text: string;
  dslLines: readonly number[];
  colours: readonly (string | null)[];
}

export interface IPaneHooks {
  /** The DSL line under the pointer (0 when it leaves). */
  hover?: (dsl: number) => void;
  /** A click on a line: pin its DSL line. */
  pick?: (dsl: number) => void;
}

/** Outline the lines of this DSL line (0: none). */
export const setFocus = StateEffect.define<number>();

/** Line wrapping on or off, reconfigured in place by `setWrap`. */
const wrapping = new Compartment();

const DIFF_CONFIG = { scanLimit: 2000, timeout: 300 };
const COLLAPSE = { margin: 3, minSize: 8 };

class DslMarker extends GutterMarker {
  constructor(readonly dsl: number) {
    super();
  }
  eq(other: DslMarker): boolean {
    return other.dsl === this.dsl;
  }
  toDOM(): Node {
    const span = document.createElement('span');
    span.textContent = String(this.dsl);
    span.title = `from DSL line ${this.dsl}`;
    return span;
  }
}

function lineDecorations(state: EditorState, pane: IPaneText): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const n = Math.min(state.doc.lines, pane.dslLines.length);
  for (let i = 1; i <= n; i++) {
    const colour = pane.colours[i - 1];
    const dsl = pane.dslLines[i - 1];
    if (!colour && !dsl) {
      continue;
    }
    const attributes: { [key: string]: string } = { 'data-dsl': String(dsl) };
    if (colour) {
      attributes.style = `background-color: ${tinted(colour)}`;
    }
    builder.add(state.doc.line(i).from, state.doc.line(i).from, Decoration.line({ attributes }));
  }
  return builder.finish();
}

function focusDecorations(state: EditorState, pane: IPaneText, dsl: number): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  if (dsl > 0) {
    const mark = Decoration.line({ class: 'acl-related' });
    const n = Math.min(state.doc.lines, pane.dslLines.length);
    for (let i = 1; i <= n; i++) {
      if (pane.dslLines[i - 1] === dsl) {
        builder.add(state.doc.line(i).from, state.doc.line(i).from, mark);
      }
    }
  }
  return builder.finish();
}

/** Colours, the DSL-line gutter, focus outlines and hover/click reporting for one text. */
function sourceMapped(pane: IPaneText, hooks: IPaneHooks, dslGutter: boolean): Extension[] {
  const colours = StateField.define<DecorationSet>({
    create: state => lineDecorations(state, pane),
    update: (value, tr) => value.map(tr.changes),
    provide: f => EditorView.decorations.from(f)
  });
  const focus = StateField.define<DecorationSet>({
    create: () => Decoration.none,
    update(value, tr) {
      for (const e of tr.effects) {
        if (e.is(setFocus)) {
          return focusDecorations(tr.state, pane, e.value);
        }
      }
      return value.map(tr.changes);
    },
    provide: f => EditorView.decorations.from(f)
  });
  const dslAt = (view: EditorView, event: Event): number => {
    const line = (event.target as HTMLElement).closest?.('.cm-line');
    if (!line || !view.contentDOM.contains(line)) {
      return 0;
    }
    try {
      return dslLineAt(pane.dslLines, view.state.doc.lineAt(view.posAtDOM(line)).number);
    } catch {
      return 0;
    }
  };
  const extensions: Extension[] = [
    colours,
    focus,
    EditorView.domEventHandlers({
      mouseover: (event, view) => {
        hooks.hover?.(dslAt(view, event));
        return false;
      },
      mouseleave: () => {
        hooks.hover?.(0);
        return false;
      },
      click: (event, view) => {
        const dsl = dslAt(view, event);
        if (dsl) {
          hooks.pick?.(dsl);
        }
        return false;
      }
    })
  ];
  if (dslGutter) {
    const markers = pane.dslLines.map((d, i) => (d && d !== pane.dslLines[i - 1] ? new DslMarker(d) : null));
    extensions.push(
      gutter({
        class: 'acl-dsl-gutter',
        lineMarker: (view, line) => {
          const n = view.state.doc.lineAt(line.from).number;
          return markers[n - 1] || null;
        },
        initialSpacer: () => new DslMarker(99)
      })
    );
  }
  return extensions;
}

function base(lang: LanguageSupport | null, readOnly: boolean, wrap: boolean): Extension[] {
  const out: Extension[] = [
    lineNumbers(),
    jupyterTheme,
    EditorView.theme({ '&': { height: '100%' } }),
    wrapping.of(wrap ? EditorView.lineWrapping : [])
  ];
  if (lang) {
    out.push(lang);
  }
  if (readOnly) {
    out.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  } else {
    out.push(history(), highlightActiveLine(), keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]));
  }
  return out;
}

/** Anything that holds CodeMirror views: the panes keep one per slot. */
export interface ICodeView {
  readonly views: EditorView[];
  /** The view whose lines number as the current text (the "after" side of a diff). */
  readonly main: EditorView;
  destroy(): void;
}

/** A read-only text with its source map. */
export function textView(
  parent: HTMLElement,
  pane: IPaneText,
  lang: LanguageSupport | null,
  hooks: IPaneHooks,
  dslGutter: boolean,
  wrap: boolean
): ICodeView {
  const view = new EditorView({
    parent,
    state: EditorState.create({ doc: pane.text, extensions: [base(lang, true, wrap), sourceMapped(pane, hooks, dslGutter)] })
  });
  return { views: [view], main: view, destroy: () => view.destroy() };
}

/** The step's diff: before | after side by side, or one unified view of after with before's removed lines. */
export function diffView(
  parent: HTMLElement,
  before: IPaneText,
  after: IPaneText,
  layout: 'split' | 'unified',
  lang: LanguageSupport | null,
  hooks: IPaneHooks,
  wrap: boolean
): ICodeView {
  if (layout === 'split') {
    const merge = new MergeView({
      parent,
      a: { doc: before.text, extensions: [base(lang, true, wrap), sourceMapped(before, hooks, true)] },
      b: { doc: after.text, extensions: [base(lang, true, wrap), sourceMapped(after, hooks, true)] },
      gutter: true,
      highlightChanges: true,
      collapseUnchanged: COLLAPSE,
      diffConfig: DIFF_CONFIG
    });
    return { views: [merge.a, merge.b], main: merge.b, destroy: () => merge.destroy() };
  }
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: after.text,
      extensions: [
        base(lang, true, wrap),
        sourceMapped(after, hooks, true),
        unifiedMergeView({
          original: before.text,
          mergeControls: false,
          gutter: true,
          highlightChanges: true,
          collapseUnchanged: COLLAPSE,
          diffConfig: DIFF_CONFIG
        })
      ]
    })
  });
  return { views: [view], main: view, destroy: () => view.destroy() };
}

/** The edit merge editor: the step's text, editable, against the previous step; each chunk can be accepted or rejected. */
export function editView(
  parent: HTMLElement,
  state: EditorState
): { view: EditorView; destroy(): void } {
  const view = new EditorView({ parent, state });
  return { view, destroy: () => view.destroy() };
}

export function editState(original: string, text: string, lang: LanguageSupport | null, wrap: boolean): EditorState {
  return EditorState.create({
    doc: text,
    extensions: [
      base(lang, false, wrap),
      unifiedMergeView({
        original,
        mergeControls: true,
        gutter: true,
        highlightChanges: true,
        syntaxHighlightDeletions: true,
        diffConfig: DIFF_CONFIG
      })
    ]
  });
}

/** Scroll `view` so that 1-based `line` is in sight, and put the cursor there when editable. */
export function revealLine(view: EditorView, line: number): void {
  const n = Math.max(1, Math.min(line, view.state.doc.lines));
  const pos = view.state.doc.line(n).from;
  view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
}

/** Wrap long lines in `views`, or not (each view keeps its scroll position and history). */
export function setWrap(views: EditorView[], wrap: boolean): void {
  for (const v of views) {
    if ((wrapping.get(v.state) === EditorView.lineWrapping) !== wrap) {
      v.dispatch({ effects: wrapping.reconfigure(wrap ? EditorView.lineWrapping : []) });
    }
  }
}

export function focusAll(views: EditorView[], dsl: number): void {
  for (const v of views) {
    v.dispatch({ effects: setFocus.of(dsl) });
  }
}
