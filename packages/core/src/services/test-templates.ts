import { TEMPLATE_PLACEHOLDER, TestTemplateDefinition, type TestFromTemplateInput, type TestTemplate, type TestTemplateCreateInput, type TestTemplateUpdateInput } from '../contracts/test-templates.ts';
import { TestCreateInput } from '../contracts/test.ts';
import { parseInput } from '../contracts/parse.ts';
import { conflict, notFound, validationFailed, type FieldIssue } from '../errors.ts';
import type { Store } from '../store/index.ts';
import { TemplateNameTaken } from '../store/test-templates.ts';

/**
 * Custom test templates (docs/test-templates.md): people write them in the dashboard (API
 * keys and agents may only read them, as the spec's capability matrix says), and anyone who
 * may create tests makes a test from one by giving its parameters' values.
 */
export function testTemplateService({ store }: { store: Store }) {
  const taken = (name: string) => conflict(`a template named "${name}" exists already (names are unique regardless of case)`);
  const mustGet = async (orgId: string, id: string) => {
    const template = await store.testTemplates.get(orgId, id);
    if (!template) throw notFound('test template');
    return template;
  };

  return {
    list: (orgId: string) => store.testTemplates.list(orgId),
    get: mustGet,

    async create(orgId: string, input: TestTemplateCreateInput, createdBy: string): Promise<TestTemplate> {
      try {
        return await store.testTemplates.create(orgId, { ...input, description: input.description ?? null, created_by: createdBy });
      } catch (err) {
        throw err instanceof TemplateNameTaken ? taken(input.name) : err;
      }
    },

    /** Merges the change and checks the whole again: a placeholder must stay declared. */
    async update(orgId: string, id: string, patch: TestTemplateUpdateInput): Promise<TestTemplate> {
      const current = await mustGet(orgId, id);
      const merged = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
      parseInput(TestTemplateDefinition, { ...merged, description: merged.description ?? undefined });
      try {
        return await store.testTemplates.update(orgId, current, patch);
      } catch (err) {
        throw err instanceof TemplateNameTaken ? taken(merged.name) : err;
      }
    },

    async delete(orgId: string, id: string): Promise<TestTemplate> {
      const gone = await store.testTemplates.delete(orgId, id);
      if (!gone) throw notFound('test template');
      return gone;
    },
  };
}

/**
 * The test a template makes with these values: every `{{template.<name>}}` replaced, the
 * template's priority and tags unless the input says otherwise, then checked as any new test
 * is (400 naming the field, e.g. steps.0.url when a value made a bad URL). A value for no
 * parameter, or none for a parameter without a default, is a 400 naming `values.<name>`.
 */
export function testFromTemplate(template: TestTemplate, input: TestFromTemplateInput): TestCreateInput {
  const issues: FieldIssue[] = [];
  const declared = new Map(template.parameters.map((p) => [p.name, p]));
  for (const name of Object.keys(input.values)) if (!declared.has(name)) issues.push({ path: `values.${name}`, message: `the template has no parameter ${name} (it has: ${[...declared.keys()].join(', ') || 'none'})` });
  const values = new Map<string, string>();
  for (const p of template.parameters) {
    const value = input.values[p.name] ?? p.default;
    if (value === undefined) issues.push({ path: `values.${p.name}`, message: `required: the parameter has no default${p.description ? ` (${p.description})` : ''}` });
    else values.set(p.name, value);
  }
  if (issues.length) throw validationFailed(issues);
  const fill = <T>(value: T): T => JSON.parse(JSON.stringify(value), (_k, v) => (typeof v === 'string' ? v.replace(TEMPLATE_PLACEHOLDER, (_m, name: string) => values.get(name) ?? '') : v)) as T;
  return parseInput(TestCreateInput, {
    project_id: input.project_id,
    name: input.name ?? template.name,
    ...(input.description ?? template.description ? { description: input.description ?? template.description } : {}),
    type: template.type,
    steps: fill(template.steps),
    assertions: fill(template.assertions),
    priority: input.priority ?? template.priority,
    tags: [...new Set([...template.tags, ...(input.tags ?? [])])],
  });
}
