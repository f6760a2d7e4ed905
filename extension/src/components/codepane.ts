/**
 * `CodePane`: what the three code panes (DSL draft | the selected step | the final project) have
 * in common — a title, file tabs, a bar for notes and buttons, the CodeMirror view, redrawing
 * only when what it shows changed, the "showing N of M lines" note, and a line to reveal once
 * drawn. Each pane is a subclass (dslpane.ts, diffpane.ts, finalpane.ts).
 */
import { EditorView } from '@codemirror/view';

import { dslPaneColours, lineColours } from '../logic/colours';
import { PipelineModel } from '../model';
import { IBody, IPipelinePayload } from '../tokens';
import { ICodeView, IPaneHooks, IPaneText, revealLine } from './codeview';
import { ILanguages, el } from './dom';

/** What a code pane needs to draw: the model, languages once loaded, wrapping, the hover hooks. */
export interface IPaneContext {
  readonly model: PipelineModel;
  readonly langs: ILanguages | null;
  readonly wrap: boolean;
  readonly hooks: IPaneHooks;
}

export const EMPTY: IBody = { text: '', lines: 0, shown_lines: 0, truncated: false, omitted: false, dsl_lines: [] };

/** A body as a pane shows it: its text, and per line its DSL line and colour. */
export function paneText(body: IBody, payload: IPipelinePayload, dsl = false): IPaneText {
  return {
    text: body.text,
    dslLines: body.dsl_lines,
    colours: dsl ? dslPaneColours(body.dsl_lines.length, payload) : lineColours(body.dsl_lines, payload)
  };
}

export abstract class CodePane {
  readonly root: HTMLElement;
  readonly title = el('header', 'acl-pane-title');
  readonly tabs = el('div', 'acl-tabs', undefined, { role: 'tablist' });
  readonly bar = el('div', 'acl-bar');
  readonly code = el('div', 'acl-code');
  view: ICodeView | null = null;

  constructor(cls: string) {
    this.root = el('section', `acl-pane ${cls}`);
    this.root.append(this.title, this.tabs, this.bar, this.code);
  }

  /** Draw the pane for the model's state (nothing happens when what it shows is unchanged). */
  abstract render(ctx: IPaneContext): void;

  /** The views whose lines are linked by DSL line (none while editing). */
  get linkedViews(): EditorView[] {
    return this.view ? this.view.views : [];
  }

  /** Scroll to 1-based `line` once the pane is drawn (now, if it is). */
  reveal(line: number): void {
    this._reveal = line;
    this._key = null;
  }

  /** Forget what is drawn: the next render draws again. */
  invalidate(): void {
    this._key = null;
  }

  destroy(): void {
    this.view?.destroy();
    this.view = null;
    this._key = null;
  }

  /** True when `key` is what the pane shows already; else remember it. */
  protected same(key: unknown[]): boolean {
    const old = this._key;
    if (old && old.length === key.length && old.every((v, i) => v === key[i])) {
      return true;
    }
    this._key = key;
    return false;
  }

  protected clear(): void {
    this.title.textContent = '';
    this.tabs.textContent = '';
    this.bar.textContent = '';
  }

  protected mount(make: (parent: HTMLElement) => ICodeView): void {
    this.view?.destroy();
    this.view = null;
    this.code.textContent = '';
    const host = el('div', 'acl-cm');
    this.code.append(host);
    this.view = make(host);
    if (this._reveal > 0) {
      revealLine(this.view.main, this._reveal);
      this._reveal = 0;
    }
  }

  protected mountMessage(text: string): void {
    this.view?.destroy();
    this.view = null;
    this.code.textContent = '';
    this.code.append(el('div', 'acl-placeholder', text));
  }

  /** A file tab: its name, its path as tooltip, selected or not. */
  protected tab(path: string, selected: boolean, title: string, select: () => void): HTMLButtonElement {
    const tab = el('button', 'acl-tab', path.split('/').pop() || path, {
      role: 'tab',
      title,
      'data-path': path,
      'aria-selected': String(selected)
    });
    tab.addEventListener('click', select);
    this.tabs.append(tab);
    return tab;
  }

  /** "showing N of M lines", with "show all" when a kernel can send the rest. */
  protected truncation(body: IBody, live: boolean, showAll: () => void): void {
    if (!body.truncated) {
      return;
    }
    const note = el('div', 'acl-truncated', `showing ${body.shown_lines} of ${body.lines} lines `);
    if (live) {
      const more = el('button', 'acl-link-button', 'show all');
      more.addEventListener('click', showAll);
      note.append(more);
    }
    this.bar.append(note);
  }

  private _key: unknown[] | null = null;
  private _reveal = 0;
}
