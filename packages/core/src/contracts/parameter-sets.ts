import { z } from 'zod';

/**
 * Parameterised (data-driven) tests: a test with `parameter_sets` runs once per set, each
 * run a case of its own with its own result, name, fingerprints and baselines. The values
 * of a set fill the test's {{name}} variables (over the test's shared `parameters`).
 *
 * A case's id is the test's id with the set's 1-based position: `<test id>[2]`, the way
 * pytest names parameterised tests. Stored results keep the test's own id plus
 * `parameter_set`, so a test's history still lists all its cases.
 */

export const MAX_PARAMETER_SETS = 100;

/** A value a {{name}} variable can take. */
export const ParameterValue = z.union([z.string().max(10_000), z.number(), z.boolean()]);
export type ParameterValue = z.output<typeof ParameterValue>;

/** Names {{name}} can refer to (the variables' own pattern, without the dotted secrets./env. forms). */
const VariableName = z
  .string()
  .regex(/^[A-Za-z_][\w-]{0,99}$/, 'a variable name: a letter or _, then letters, digits, _ or -; at most 100')
  .refine((n) => n !== 'secrets' && n !== 'env', { message: 'secrets and env are reserved ({{secrets.NAME}}, {{env.NAME}})' });

/** A stored test's shared {{name}} values (a test file's `parameters`); a parameter set's values win over them. */
export const SharedParameters = z
  .record(VariableName, ParameterValue)
  .refine((v) => Object.keys(v).length <= 100, { message: 'at most 100 values' })
  .describe('Values of {{name}} variables shared by every run of the test (a parameter set\'s values win over them)');

const SetName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^[\]\n\r]+$/, 'no brackets or line breaks (the name is shown as "test [name]")');

export const ParameterSet = z
  .strictObject({
    name: SetName.optional().describe('Shown after the test name, as "sign in [admin]" (default: the values, e.g. "role=admin, user=ann"); unique within the test'),
    values: z
      .record(VariableName, ParameterValue)
      .refine((v) => Object.keys(v).length > 0, { message: 'a parameter set needs at least one value' })
      .refine((v) => Object.keys(v).length <= 100, { message: 'at most 100 values per set' })
      .describe('Values of {{name}} variables for this case'),
  })
  .describe('One case of a parameterised test');
export type ParameterSet = z.output<typeof ParameterSet>;

/** The sets of a test, each named (given or derived) and no two with one name. */
export const ParameterSets = z
  .array(ParameterSet)
  .max(MAX_PARAMETER_SETS)
  .superRefine((sets, ctx) => {
    const seen = new Map<string, number>();
    sets.forEach((s, i) => {
      const name = parameterSetName(s);
      const earlier = seen.get(name);
      if (earlier === undefined) seen.set(name, i);
      else ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `set ${i + 1} is named ${JSON.stringify(name)} like set ${earlier + 1}${s.name ? '' : ' (its values give that name)'}: give each set a name of its own` });
    });
  })
  .describe(`Run the test once per set (at most ${MAX_PARAMETER_SETS}); each set is a case with its own result. Empty: the test runs once`);

/** A set's name: its own, else its values as `k=v, k=v` (cut to 100 characters). */
export function parameterSetName(set: ParameterSet): string {
  if (set.name) return set.name;
  const derived = Object.entries(set.values)
    .map(([k, v]) => `${k}=${String(v).replace(/[[\]\r\n]+/g, ' ')}`)
    .join(', ');
  return derived.length > 100 ? `${derived.slice(0, 99)}…` : derived;
}

/** What a planned case carries: which test and set it is, and the set's values. */
export const ParameterCase = z.strictObject({
  test_id: z.string().min(1).describe('The parameterised test'),
  index: z.number().int().min(1).max(MAX_PARAMETER_SETS).describe('1-based position of the set'),
  name: z.string().min(1).max(100).describe('The set\'s name'),
  values: z.record(z.string(), ParameterValue).describe('The set\'s values'),
});
export type ParameterCase = z.output<typeof ParameterCase>;

/** A stored test's id, or one case of it: `<test id>[n]` runs only that parameter set. */
export const TestOrCaseId = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:\[(?:[1-9]\d?|100)\])?$/i, 'a test id (UUID), or one parameter set\'s case: <test id>[n], n from 1 to 100')
  .describe('A test id, or <test id>[n] for only the n-th parameter set of a parameterised test');

/** A case's id: `<test id>[<index>]`. */
export const caseId = (testId: string, index: number): string => `${testId}[${index}]`;

const CASE_ID = /^(.+)\[(\d{1,3})\]$/;

/** The test id and set position in a case id; a plain test id has no index. */
export function splitCaseId(id: string): { testId: string; index?: number } {
  const m = CASE_ID.exec(id);
  if (!m) return { testId: id };
  const index = Number(m[2]);
  return index >= 1 && index <= MAX_PARAMETER_SETS ? { testId: m[1], index } : { testId: id };
}

/**
 * A selection of tests and cases without repeats, in the order given: a test or case named
 * again is dropped, and so is a case whose whole test is named too (the test runs every
 * case). What is left is what the plan executes, one entry each.
 */
export function distinctSelection(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  const whole = new Set(unique.filter((id) => splitCaseId(id).index === undefined));
  return unique.filter((id) => {
    const { testId, index } = splitCaseId(id);
    return index === undefined || !whole.has(testId);
  });
}

/** A case's name in reports: `<test name> [<set name>]`, the test's part cut so the whole fits 255. */
export function caseName(testName: string, setName: string): string {
  const suffix = ` [${setName}]`;
  return `${testName.slice(0, Math.max(1, 255 - suffix.length))}${suffix}`;
}

/** The cases of a test's sets, in order. */
export function parameterCases(testId: string, sets: readonly ParameterSet[]): ParameterCase[] {
  return sets.map((s, i) => ({ test_id: testId, index: i + 1, name: parameterSetName(s), values: { ...s.values } }));
}
