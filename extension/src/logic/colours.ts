/**
 * Line colouring from a source map. Python gives, per line of a body, the DSL line behind it
 * (`dsl_lines`, 0 for boilerplate) and a colour per DSL line (`dsl_colors`, with `palette` for
 * the rest); these functions only look them up. Line numbers are 1-based, as editors show them.
 */

export interface IColourTable {
  dsl_colors: { [line: string]: string };
  palette: string[];
}

/** The colour of DSL line `dsl`, or null for 0 (boilerplate) and lines without one. */
export function colourOf(dsl: number, table: IColourTable): string | null {
  if (!Number.isInteger(dsl) || dsl <= 0) {
    return null;
  }
  const own = table.dsl_colors[String(dsl)];
  if (own) {
    return own;
  }
  const n = table.palette.length;
  return n ? table.palette[(dsl - 1) % n] : null;
}

/** The background of every line of a body: `result[i]` colours line `i + 1`. */
export function lineColours(dslLines: readonly number[], table: IColourTable): (string | null)[] {
  return dslLines.map(dsl => colourOf(dsl, table));
}

/**
 * The DSL pane's colours: only DSL lines that produced C++ (keys of `dsl_colors`) are coloured,
 * so an uncoloured DSL line visibly produced nothing.
 */
export function dslPaneColours(lineCount: number, table: IColourTable): (string | null)[] {
  const out: (string | null)[] = [];
  for (let line = 1; line <= lineCount; line++) {
    out.push(table.dsl_colors[String(line)] ?? null);
  }
  return out;
}

/** The DSL line behind editor line `line` (1-based), 0 when unknown. */
export function dslLineAt(dslLines: readonly number[], line: number): number {
  return line >= 1 && line <= dslLines.length ? dslLines[line - 1] || 0 : 0;
}

/** The editor lines (1-based, ascending) that came from DSL line `dsl`. */
export function relatives(dslLines: readonly number[], dsl: number): number[] {
  if (dsl <= 0) {
    return [];
  }
  const out: number[] = [];
  dslLines.forEach((d, i) => {
    if (d === dsl) {
      out.push(i + 1);
    }
  });
  return out;
}

/**
 * A colour readable on both themes: the pastel from Python mixed with transparency, by a
 * percentage the stylesheet sets per theme (`--acl-line-tint`).
 */
export function tinted(colour: string): string {
  return `color-mix(in srgb, ${colour} var(--acl-line-tint, 100%), transparent)`;
}
