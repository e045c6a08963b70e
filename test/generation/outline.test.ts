import { describe, it, expect } from 'vitest';
import { parsePlainLanguage, toTestDefinition } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';

/** Gherkin's Scenario Outline in the plain-language grammar: examples become parameter sets. */
describe('Scenario Outline examples', () => {
  const outline = (rows: string) => `Scenario Outline: search
Given I am on "/search?q=<query>"
Then I should see "<expected result>"
And I should see "<not a column>"
Examples:
  | query | expected result |
${rows}`;

  it('each row is a set; placeholders of the header become variables, numbers and booleans keep their type', () => {
    const r = parsePlainLanguage(outline('  | lamp | 3 lamps |\n  | 42 | true |'));
    expect(r.not_understood).toEqual([]);
    expect(r.parameter_sets).toEqual([{ values: { query: 'lamp', expected_result: '3 lamps' } }, { values: { query: 42, expected_result: true } }]);
    const text = JSON.stringify(r.steps);
    expect(text).toContain('/search?q={{query}}');
    expect(text).toContain('{{expected_result}}');
    // Angle brackets that name no column are left as written.
    expect(text).toContain('<not a column>');
    const test = toTestDefinition(r);
    expect(TestDefinition.safeParse(test).success).toBe(true);
    expect(test.parameter_sets).toHaveLength(2);
  });

  it('two rows alike stay two cases, the later named by its position', () => {
    const r = parsePlainLanguage(outline('  | lamp | x |\n  | lamp | x |'));
    expect(r.parameter_sets?.map((s) => s.name)).toEqual([undefined, 'row 2']);
    expect(TestDefinition.safeParse(toTestDefinition(r)).success).toBe(true);
  });

  it('a row with the wrong number of cells is listed as not understood, with its line', () => {
    const r = parsePlainLanguage(outline('  | lamp | x |\n  | sofa |'));
    expect(r.parameter_sets).toHaveLength(1);
    expect(r.not_understood).toEqual([expect.objectContaining({ line: 8, text: '| sofa |', reason: 'this row has 1 cells; the header has 2' })]);
  });

  it('a scenario without examples has no parameter sets; a table outside Examples is not read as one', () => {
    expect(parsePlainLanguage('Scenario: plain\nGiven I am on "/"').parameter_sets).toBeUndefined();
    const r = parsePlainLanguage('Given I am on "/"\n| a | b |');
    expect(r.parameter_sets).toBeUndefined();
    expect(r.not_understood.map((n) => n.text)).toEqual(['| a | b |']);
  });
});
