import { parameterSetName, MAX_PARAMETER_SETS, type ParameterSet, type ParameterValue } from '../../../contracts/parameter-sets.ts';

/**
 * Gherkin's Scenario Outline: an `Examples:` table under the steps, whose header names the
 * `<placeholders>` the steps use. Each row becomes a parameter set, and `<name>` in a
 * step becomes the variable `{{name}}`, so the outline is one parameterised test.
 */
export interface Examples {
  sets: ParameterSet[];
  /** Lines that belong to the tables (the caller does not read them as steps). */
  lines: Set<number>;
  /** Placeholder as written → variable name. */
  columns: Map<string, string>;
  problems: Array<{ line: number; text: string; reason: string; closest: string }>;
}

const ROW = /^\|(.*)\|$/;
const EXAMPLES = /^examples\s*:?\s*(.*)$/i;
const TABLE_HINT = '| column | other |  (a header row, then one row of values per case)';

/** Cells of a table row; `\|` is a pipe inside a cell. */
const cellsOf = (row: string): string[] => row.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));

/** A placeholder as a variable name: `user name` → `user_name`. */
const variableOf = (column: string): string => {
  const v = column.replace(/[^\w-]+/g, '_').replace(/^(?=[\d-])/, '_');
  return v === 'secrets' || v === 'env' ? `${v}_` : v;
};

/** A cell's value: numbers and true/false keep their type (a JSON assertion compares them as such). */
function valueOf(cell: string): ParameterValue {
  if (/^-?(?:0|[1-9]\d{0,14})(?:\.\d+)?$/.test(cell)) return Number(cell);
  if (cell === 'true' || cell === 'false') return cell === 'true';
  return cell;
}

export function readExamples(lines: Array<{ line: number; text: string }>): Examples {
  const out: Examples = { sets: [], lines: new Set(), columns: new Map(), problems: [] };
  let header: string[] | undefined;
  let inExamples = false;
  for (const { line, text } of lines) {
    const bare = text.trim();
    if (EXAMPLES.test(bare)) {
      inExamples = true;
      header = undefined;
      out.lines.add(line);
      continue;
    }
    const row = ROW.exec(bare);
    if (!row || !inExamples) {
      if (bare) inExamples = false;
      continue;
    }
    out.lines.add(line);
    const cells = cellsOf(row[1]);
    if (!header) {
      header = cells;
      const bad = cells.find((c) => !c || !variableOf(c));
      if (bad !== undefined) out.problems.push({ line, text, reason: 'an examples table header names each column', closest: TABLE_HINT });
      for (const c of cells) if (c && out.columns.get(c) === undefined) out.columns.set(c, variableOf(c));
      continue;
    }
    if (cells.length !== header.length) {
      out.problems.push({ line, text, reason: `this row has ${cells.length} cells; the header has ${header.length}`, closest: TABLE_HINT });
      continue;
    }
    if (out.sets.length >= MAX_PARAMETER_SETS) {
      out.problems.push({ line, text, reason: `at most ${MAX_PARAMETER_SETS} example rows`, closest: TABLE_HINT });
      continue;
    }
    const values = Object.fromEntries(header.map((h, i) => [variableOf(h), valueOf(cells[i])]));
    const set: ParameterSet = { values };
    // Two rows alike would share a name; the later one is named by its position instead.
    if (out.sets.some((s) => parameterSetName(s) === parameterSetName(set))) set.name = `row ${out.sets.length + 1}`;
    out.sets.push(set);
  }
  return out;
}

/** `<placeholder>` → `{{variable}}` for the table's columns; other angle brackets stay. */
export function withVariables(text: string, columns: Map<string, string>): string {
  if (!columns.size) return text;
  return text.replace(/<([^<>\n]{1,100})>/g, (m, name: string) => {
    const v = columns.get(name.trim());
    return v ? `{{${v}}}` : m;
  });
}
