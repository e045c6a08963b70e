import { z } from 'zod';
import { Assertion, Step } from './steps.ts';
import { Tag, TestPriority, TestType } from './test.ts';
import { Uuid } from './common.ts';

/**
 * Custom test templates (spec capability matrix: "Custom test templates — dashboard edit,
 * agent gateway read-only"): an organization's house shape for a kind of test ("CRUD
 * endpoint", "page renders and has no console errors"). A template holds a test's steps and
 * assertions with `{{template.<name>}}` placeholders; a new test is made from it by giving
 * the values. Placeholders go in text (URLs, selectors, values, bodies), not in numbers.
 */
export const TEMPLATE_PLACEHOLDER = /\{\{\s*template\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

const TemplateParameter = z.strictObject({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit').describe('Written {{template.<name>}} in the steps and assertions'),
  description: z.string().max(1000).optional(),
  default: z.string().max(10_000).optional().describe('Value when none is given; a parameter without a default is required'),
});

const TemplateFields = {
  name: z.string().trim().min(1).max(255).describe('Template name, unique in the organization regardless of case'),
  description: z.string().max(10_000).optional(),
  type: TestType,
  parameters: z.array(TemplateParameter).max(50).default([]).describe('What a test made from it fills in'),
  steps: z.array(Step).max(500).default([]),
  assertions: z.array(Assertion).max(500).default([]),
  priority: TestPriority.default('medium'),
  tags: z.array(Tag).max(50).default([]),
};

/** Every placeholder names a declared parameter, and no parameter is declared twice. */
function checkParameters(t: { parameters?: Array<{ name: string }>; steps?: unknown[]; assertions?: unknown[] }, ctx: z.RefinementCtx) {
  const declared = new Set<string>();
  (t.parameters ?? []).forEach((p, i) => {
    if (declared.has(p.name)) ctx.addIssue({ code: 'custom', path: ['parameters', i, 'name'], message: `parameter ${p.name} is declared twice` });
    declared.add(p.name);
  });
  for (const field of ['steps', 'assertions'] as const) {
    if (!t[field]) continue;
    for (const { path, name } of placeholdersIn(t[field], [field])) {
      if (!declared.has(name)) ctx.addIssue({ code: 'custom', path, message: `{{template.${name}}} is not a declared parameter` });
    }
  }
}

/** Where each placeholder stands in a JSON value, with its path. */
export function placeholdersIn(value: unknown, path: Array<string | number> = []): Array<{ path: Array<string | number>; name: string }> {
  if (typeof value === 'string') return [...value.matchAll(TEMPLATE_PLACEHOLDER)].map((m) => ({ path, name: m[1] }));
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholdersIn(v, [...path, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => placeholdersIn(v, [...path, k]));
  return [];
}

export const TestTemplateCreateInput = z.strictObject(TemplateFields).superRefine(checkParameters);
export type TestTemplateCreateInput = z.output<typeof TestTemplateCreateInput>;

export const TestTemplateUpdateInput = z
  .strictObject({
    name: TemplateFields.name.optional(),
    description: z.string().max(10_000).nullable().optional(),
    type: TestType.optional(),
    parameters: z.array(TemplateParameter).max(50).optional().describe('Replaced as a whole'),
    steps: z.array(Step).max(500).optional().describe('Replaced as a whole'),
    assertions: z.array(Assertion).max(500).optional().describe('Replaced as a whole'),
    priority: TestPriority.optional(),
    tags: z.array(Tag).max(50).optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'at least one field is required' });
export type TestTemplateUpdateInput = z.output<typeof TestTemplateUpdateInput>;

/** The whole template as stored, checked again after an update merged into it. */
export const TestTemplateDefinition = z.object(TemplateFields).superRefine(checkParameters);

export const TestTemplateSchema = z.object({
  id: Uuid,
  name: z.string(),
  description: z.string().nullable(),
  type: TestType,
  parameters: z.array(TemplateParameter),
  steps: z.array(Step),
  assertions: z.array(Assertion),
  priority: TestPriority,
  tags: z.array(z.string()),
  created_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TestTemplate = z.output<typeof TestTemplateSchema>;

export const TestFromTemplateInput = z.strictObject({
  project_id: Uuid.describe('Project to create the test in'),
  name: z.string().trim().min(1).max(255).optional().describe("The test's name (default: the template's)"),
  description: z.string().max(10_000).optional(),
  values: z.record(z.string(), z.string().max(10_000)).default({}).describe('A value per template parameter; ones with a default may be left out'),
  priority: TestPriority.optional().describe("Default: the template's"),
  tags: z.array(Tag).max(50).optional().describe("Added to the template's"),
});
export type TestFromTemplateInput = z.output<typeof TestFromTemplateInput>;
