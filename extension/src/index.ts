/**
 * AscendCraft Lab's JupyterLab extension: one application plugin that renders
 * `application/vnd.ascendcraft.pipeline+json` as the pipeline view, links each notebook to its
 * kernel through one comm (so a view can accept, edit, undo, regenerate, compile), and
 * registers every action as a command with JSON-schema arguments. The layout preferences (pane
 * layout, wrapping, column widths, height) are user settings shared by every view; any view
 * opens in a main-area tab of its own.
 *
 * An application plugin rather than a MIME extension: a bare MIME renderer cannot reach the
 * kernel (JupyterLab issue 5954). The renderer finds its notebook through the notebook tracker
 * when attached and shares that notebook's link; outside a notebook, or for an untrusted or
 * saved output without a kernel, it renders read-only from the MIME data.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Widget } from '@lumino/widgets';

import { PipelineTabs } from './components/tab';
import { ILanguages, IViewServices, PipelineView } from './components/view';
import { ViewRegistry } from './components/registry';
import { KernelLink } from './link';
import { PaneLayout } from './logic/layout';
import { whyNot, ActionName } from './logic/state';
import { LayoutPrefs } from './prefs';
import { CommandIDs, COMMANDS, MIME_TYPE, RENDERER_RANK } from './tokens';

const PLUGIN_ID = 'ascendcraft-lab:pipeline';


async function loadLanguages(registry: IEditorLanguageRegistry | null): Promise<ILanguages> {
  const load = async (mime: string) => {
    if (!registry) {
      return null;
    }
    try {
      const lang = await registry.getLanguage(mime);
      return lang?.support ?? null;
    } catch {
      return null; // no highlighting is better than no view
    }
  };
  const [cpp, python] = await Promise.all([load('text/x-c++src'), load('text/x-python')]);
  return { cpp, python };
}

function addCommands(app: JupyterFrontEnd, registry: ViewRegistry<PipelineView>, prefs: LayoutPrefs, tabs: PipelineTabs): void {
  const view = (args: ReadonlyPartialJSONObject) => registry.find(args.session as string | undefined);
  const stepOf = (v: PipelineView, args: ReadonlyPartialJSONObject) => (args.step as string) || v.model?.state.selected || '';
  const can = (action: ActionName) => (args: ReadonlyPartialJSONObject) => {
    const v = view(args);
    const m = v?.model;
    if (!v || !m) {
      return false;
    }
    const state = args.step ? { ...m.state, selected: args.step as string } : m.state;
    return whyNot(action, state, m.payload) === null;
  };
  const add = (
    id: string,
    execute: (v: PipelineView, args: ReadonlyPartialJSONObject) => unknown,
    extra: { isEnabled?: (args: ReadonlyPartialJSONObject) => boolean; isToggled?: (args: ReadonlyPartialJSONObject) => boolean } = {}
  ) => {
    const spec = COMMANDS[id];
    app.commands.addCommand(id, {
      label: spec.label,
      caption: spec.caption,
      describedBy: { args: spec.args as any },
      isEnabled: extra.isEnabled || (args => !!view(args)?.model),
      isToggled: extra.isToggled,
      execute: args => {
        const v = view(args);
        if (!v || !v.model) {
          throw new Error(`no pipeline view${args.session ? ` for session ${String(args.session)}` : ''}`);
        }
        return execute(v, args);
      }
    });
  };
  add(CommandIDs.selectStep, (v, args) => v.select(args.step as string));
  add(CommandIDs.nextStep, v => v.move(1));
  add(CommandIDs.previousStep, v => v.move(-1));
  add(CommandIDs.toggleUnchanged, v => v.toggleUnchanged(), {
    isToggled: args => !!view(args)?.model?.state.hideUnchanged
  });
  add(CommandIDs.toggleLayout, v => v.toggleLayout(), {
    isToggled: args => view(args)?.model?.state.layout === 'unified'
  });
  add(CommandIDs.acceptStep, (v, args) => v.model!.accept(stepOf(v, args)), { isEnabled: can('accept') });
  add(CommandIDs.editStep, (v, args) => v.startEdit(stepOf(v, args), args.path as string | undefined), {
    isEnabled: can('edit')
  });
  add(CommandIDs.saveEdit, v => v.saveEdit(), { isEnabled: args => !!view(args)?.model?.state.editing });
  add(CommandIDs.cancelEdit, v => v.cancelEdit(), { isEnabled: args => !!view(args)?.model?.state.editing });
  add(CommandIDs.undoStep, (v, args) => v.model!.undo(stepOf(v, args)), { isEnabled: can('undo') });
  add(CommandIDs.regenerateStep, (v, args) => v.model!.regenerate(stepOf(v, args)), { isEnabled: can('regenerate') });
  add(CommandIDs.compile, (v, args) => v.model!.compile((args.backend as string) || 'emulator'), {
    isEnabled: can('compile')
  });
  add(CommandIDs.profile, v => v.model!.profile(), { isEnabled: can('profile') });
  add(CommandIDs.focusDslLine, (v, args) => v.focusDsl(Number(args.line) || 0));
  add(CommandIDs.openInTab, v => tabs.open(v));

  // Layout preferences: every view follows them, so no view is needed to change them.
  const layouts: PaneLayout[] = ['auto', 'columns', 'stacked'];
  const pref = (
    id: string,
    execute: (args: ReadonlyPartialJSONObject) => void,
    isToggled: (args: ReadonlyPartialJSONObject) => boolean
  ) => {
    const spec = COMMANDS[id];
    app.commands.addCommand(id, {
      label: args => (args.layout ? `${spec.label}: ${String(args.layout)}` : spec.label),
      caption: spec.caption,
      describedBy: { args: spec.args as any },
      execute,
      isToggled
    });
  };
  pref(CommandIDs.toggleWrap, () => prefs.update({ wrapLines: !prefs.value.wrapLines }), () => prefs.value.wrapLines);
  pref(
    CommandIDs.setPaneLayout,
    args => {
      const layout = args.layout as PaneLayout;
      if (!layouts.includes(layout)) {
        throw new Error(`layout must be one of ${layouts.join(', ')}, not ${JSON.stringify(args.layout)}`);
      }
      prefs.update({ paneLayout: layout });
    },
    args => prefs.value.paneLayout === args.layout
  );
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'The AscendCraft Lab pipeline view: passes, diffs, edit/accept, compile & verify.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [INotebookTracker, IEditorLanguageRegistry, ICommandPalette, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    tracker: INotebookTracker | null,
    languages: IEditorLanguageRegistry | null,
    palette: ICommandPalette | null,
    settings: ISettingRegistry | null
  ) => {
    const registry = new ViewRegistry<PipelineView>();
    const links = new Map<NotebookPanel, KernelLink>();
    const langs = loadLanguages(languages);
    const prefs = new LayoutPrefs();
    if (settings) {
      settings.load(PLUGIN_ID).then(
        s => prefs.connect(s),
        err => console.warn('ascendcraft-lab: no layout settings (the defaults hold for this session):', err)
      );
    }

    const linkFor = (widget: Widget): KernelLink | null => {
      const panel = tracker?.find(p => p.content.node.contains(widget.node));
      if (!panel) {
        return null;
      }
      let link = links.get(panel);
      if (!link) {
        const made = new KernelLink(panel.sessionContext);
        links.set(panel, made);
        panel.disposed.connect(() => {
          made.dispose();
          links.delete(panel);
        });
        link = made;
      }
      return link;
    };

    const services: IViewServices = { commands: app.commands, registry, linkFor, languages: langs, prefs };
    rendermime.addFactory(
      {
        safe: true, // renders text through CodeMirror only; actions need a trusted output and a kernel
        mimeTypes: [MIME_TYPE],
        defaultRank: RENDERER_RANK,
        createRenderer: options => new PipelineView(options, services)
      },
      RENDERER_RANK
    );
    addCommands(app, registry, prefs, new PipelineTabs(app, services, tracker));
    if (palette) {
      const category = 'AscendCraft Lab';
      for (const command of [
        CommandIDs.acceptStep,
        CommandIDs.editStep,
        CommandIDs.undoStep,
        CommandIDs.regenerateStep,
        CommandIDs.compile,
        CommandIDs.profile,
        CommandIDs.nextStep,
        CommandIDs.previousStep,
        CommandIDs.toggleUnchanged,
        CommandIDs.toggleLayout,
        CommandIDs.toggleWrap,
        CommandIDs.openInTab
      ]) {
        palette.addItem({ command, category });
      }
      for (const layout of ['auto', 'columns', 'stacked']) {
        palette.addItem({ command: CommandIDs.setPaneLayout, args: { layout }, category });
      }
    }
  }
};

export default plugin;
