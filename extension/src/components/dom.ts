/**
 * What every part of the pipeline view shares: building DOM nodes, and what a part needs from
 * the view that holds it (`IViewContext`): the model, the services, and running a command.
 */
import { LanguageSupport } from '@codemirror/language';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';

import { IPipelineLink } from '../link';
import { PipelineModel } from '../model';
import { LayoutPrefs } from '../prefs';
import { ViewRegistry } from './registry';
import type { PipelineView } from './view';

export interface ILanguages {
  cpp: LanguageSupport | null;
  python: LanguageSupport | null;
}

/** What the plugin gives every view. */
export interface IViewServices {
  commands: CommandRegistry;
  registry: ViewRegistry<PipelineView>;
  /** The kernel link of the notebook holding `widget`, or null outside a notebook. */
  linkFor(widget: Widget): IPipelineLink | null;
  languages: Promise<ILanguages>;
  /** The layout preferences every view follows. */
  prefs: LayoutPrefs;
}

/** What a part of the view (a pane, the pass list, the verdict, ...) needs from the view. */
export interface IViewContext {
  readonly model: PipelineModel;
  readonly services: IViewServices;
  /** Run a command on this view's session (the buttons go through the commands, as the palette does). */
  exec(command: string, args?: { [key: string]: unknown }): Promise<unknown>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
  attrs?: { [key: string]: string }
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) {
    node.className = cls;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    node.setAttribute(k, v);
  }
  return node;
}
