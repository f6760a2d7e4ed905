/**
 * `LayoutPrefs`: the layout preferences every pipeline view follows (logic/layout.ts), kept in
 * the user's JupyterLab settings (`ascendcraft-lab:pipeline`, schema/pipeline.json) so they
 * survive a reload and can be edited in the Settings Editor. Without a settings registry they
 * hold for the session only.
 */
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ISignal, Signal } from '@lumino/signaling';

import { DEFAULT_PREFS, ILayoutPrefs, readPrefs } from './logic/layout';

export class LayoutPrefs {
  get value(): ILayoutPrefs {
    return this._value;
  }

  get changed(): ISignal<this, ILayoutPrefs> {
    return this._changed;
  }

  /** Follow the user's settings from now on (and whatever changes them, e.g. the Settings Editor). */
  connect(settings: ISettingRegistry.ISettings): void {
    this._settings = settings;
    settings.changed.connect(() => this._load());
    this._load();
  }

  /** Change some preferences: every view follows at once; the settings are written in the background. */
  update(change: Partial<ILayoutPrefs>): void {
    const next = readPrefs({ ...this._value, ...change });
    const keys = (Object.keys(change) as (keyof ILayoutPrefs)[]).filter(
      k => JSON.stringify(next[k]) !== JSON.stringify(this._value[k])
    );
    if (!keys.length) {
      return;
    }
    this._set(next);
    const settings = this._settings;
    if (settings) {
      // One write at a time, in order; the settings' echo of an older write must not undo a newer change.
      this._pending++;
      this._writing = this._writing.then(async () => {
        for (const k of keys) {
          try {
            await settings.set(k, next[k] as any);
          } catch (err) {
            console.warn(`ascendcraft-lab: could not save the setting ${k}:`, err);
          }
        }
        if (--this._pending === 0) {
          this._load();
        }
      });
    }
  }

  private _load(): void {
    if (this._settings && this._pending === 0) {
      this._set(readPrefs(this._settings.composite as { [key: string]: unknown }));
    }
  }

  private _set(value: ILayoutPrefs): void {
    if (JSON.stringify(value) !== JSON.stringify(this._value)) {
      this._value = value;
      this._changed.emit(value);
    }
  }

  private _value: ILayoutPrefs = readPrefs(DEFAULT_PREFS as unknown as { [key: string]: unknown });
  private _settings: ISettingRegistry.ISettings | null = null;
  private _writing: Promise<void> = Promise.resolve();
  private _pending = 0;
  private _changed = new Signal<this, ILayoutPrefs>(this);
}
