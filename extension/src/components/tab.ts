/**
 * "Open in tab": a session's pipeline view in a JupyterLab main-area tab (a `MainAreaWidget`),
 * with the whole width and height of the main area. The tab's view shares its notebook's
 * kernel link (live, like the cell's view: an action in either shows in both), stores what its
 * actions change in the cell's output (so saving the notebook keeps it), and closes with its
 * notebook. One tab per notebook and session: opening it again brings it to the front.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { MimeModel } from '@jupyterlab/rendermime';
import { LabIcon } from '@jupyterlab/ui-components';

import { linkExplanation } from '../logic/state';
import { MIME_TYPE } from '../tokens';
import { IViewServices, PipelineView } from './view';

/** Three stages in a row: the tab's icon. */
export const pipelineIcon = new LabIcon({
  name: 'ascendcraft-lab:pipeline',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">' +
    '<g class="jp-icon3" fill="#616161">' +
    '<rect x="0.5" y="4" width="4" height="8" rx="1"/><rect x="6" y="4" width="4" height="8" rx="1"/>' +
    '<rect x="11.5" y="4" width="4" height="8" rx="1"/></g></svg>'
});

export class PipelineTabs {
  constructor(
    private readonly _app: JupyterFrontEnd,
    private readonly _services: IViewServices,
    private readonly _tracker: INotebookTracker | null
  ) {}

  /** Show the tab of `source`'s session, opening it first if there is none. */
  async open(source: PipelineView): Promise<MainAreaWidget<PipelineView>> {
    for (const [, tab] of this._tabs) {
      if (tab.content === source) {
        this._app.shell.activateById(tab.id); // already a tab: show it
        return tab;
      }
    }
    const model = source.model;
    if (!model) {
      throw new Error('this output holds no pipeline');
    }
    const panel = this._tracker?.find(p => p.content.node.contains(source.node)) || null;
    const key = `${panel ? panel.id : ''}|${source.session}`;
    const open = this._tabs.get(key);
    if (open && !open.isDisposed) {
      this._app.shell.activateById(open.id);
      return open;
    }
    const session = source.session;
    const view = new PipelineView({ mimeType: MIME_TYPE }, this._services, {
      link: model.link,
      readOnly: linkExplanation(model.state) || 'read-only: the notebook of this pipeline has no kernel',
      persist: bundle => this._cellView(panel, session)?.persistBundle(bundle)
    });
    await view.renderModel(new MimeModel({ data: { [MIME_TYPE]: model.payload as any }, trusted: source.trusted }));
    // Open where the reader was: the same step, the same diff layout.
    const state = model.state;
    if (state.selected) {
      view.select(state.selected);
    }
    view.model?.dispatch({ type: 'layout', layout: state.layout });

    const tab = new MainAreaWidget({ content: view });
    tab.id = `ascendcraft-pipeline-${++this._count}`;
    tab.addClass('acl-pipeline-tab');
    tab.title.label = `${model.payload.session.name} · pipeline`;
    tab.title.caption = `AscendCraft Lab pipeline of ${model.payload.session.folder}${panel ? ` (${panel.context.path})` : ''}`;
    tab.title.icon = pipelineIcon;
    tab.title.closable = true;
    this._tabs.set(key, tab);
    tab.disposed.connect(() => this._tabs.delete(key));
    // Without its notebook the tab has no kernel and no output to keep: it goes too (closed
    // as a person would close it, once the shell has finished with the notebook).
    panel?.disposed.connect(() => requestAnimationFrame(() => tab.close()));
    this._app.shell.add(tab, 'main', panel ? { mode: 'tab-after', ref: panel.id } : undefined);
    this._app.shell.activateById(tab.id);
    return tab;
  }

  /** The cell view of `session` in `panel` (the output a tab's actions are stored in). */
  private _cellView(panel: NotebookPanel | null, session: string): PipelineView | null {
    return (
      this._services.registry
        .all()
        .find(v => !v.inTab && v.session === session && (!panel || panel.content.node.contains(v.node))) || null
    );
  }

  private _tabs = new Map<string, MainAreaWidget<PipelineView>>();
  private _count = 0;
}
