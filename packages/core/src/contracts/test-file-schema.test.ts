import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { flowFileJsonSchema, testFileJsonSchema } from './test-file-schema.ts';
import { TestFile } from './steps.ts';
import { FlowDefinition } from './flow.ts';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const committed = JSON.parse(readFileSync(join(root, 'schemas', 'test-file.schema.json'), 'utf8'));

const sample = {
  name: 'sign in',
  type: 'ui',
  steps: [
    { type: 'goto', url: '/login' },
    { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
    { type: 'fill', selector: '#password', value: '{{secrets.PASSWORD}}' },
    { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    { type: 'assert', assertion: { type: 'url', contains: '/dashboard' } },
  ],
  assertions: [{ type: 'text', selector: 'h1', contains: 'Welcome' }],
};

describe('test file JSON Schema', () => {
  it('is committed up to date (run `npm run schemas` after changing the contracts)', () => {
    expect(committed).toEqual(testFileJsonSchema());
  });

  it('accepts what the zod contract accepts and rejects an unknown step type', () => {
    const validate = new Ajv2020({ strict: false }).compile(committed);
    expect(validate(sample)).toBe(true);
    expect(TestFile.safeParse(sample).success).toBe(true);
    const bad = { ...sample, steps: [{ type: 'teleport', to: 'mars' }] };
    expect(validate(bad)).toBe(false);
    expect(TestFile.safeParse(bad).success).toBe(false);
  });

  it('every example in docs/test-format.md is a valid test file', () => {
    const doc = readFileSync(join(root, 'docs', 'test-format.md'), 'utf8');
    const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      const parsed = TestFile.safeParse(example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });
});

describe('flow file JSON Schema', () => {
  const committedFlow = JSON.parse(readFileSync(join(root, 'schemas', 'flow-file.schema.json'), 'utf8'));

  it('is committed up to date (run `npm run schemas` after changing the contracts)', () => {
    expect(committedFlow).toEqual(flowFileJsonSchema());
  });

  it('accepts the flow files of the fixture suite and rejects a flow with trailing assertions, as zod does', () => {
    const validate = new Ajv2020({ strict: false }).compile(committedFlow);
    for (const name of ['sign-in.flow.json', 'open-dashboard.flow.json', 'create-item.flow.json']) {
      const file = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'suites', 'flows', name), 'utf8'));
      expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
      expect(FlowDefinition.safeParse(file).success).toBe(true);
    }
    const bad = { name: 'x', steps: [{ type: 'goto', url: '/' }], assertions: [] };
    expect(validate(bad)).toBe(false);
    expect(FlowDefinition.safeParse(bad).success).toBe(false);
  });
});
