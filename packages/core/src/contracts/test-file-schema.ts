import { z } from 'zod';
import { TestFileShape } from './steps.ts';
import { FlowFileShape } from './flow.ts';

export const TEST_FILE_SCHEMA_ID = 'https://svc.dev/schemas/test-file.schema.json';

/** JSON Schema (draft 2020-12) of a test file, generated from the zod contract. */
export function testFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TestFileShape, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any', reused: 'ref' }) as Record<string, unknown>;
  return { ...schema, $id: TEST_FILE_SCHEMA_ID, title: 'svc test file', description: 'One svc test, or a suite { "tests": [...] }. See docs/test-format.md.' };
}

export const FLOW_FILE_SCHEMA_ID = 'https://svc.dev/schemas/flow-file.schema.json';

/** JSON Schema (draft 2020-12) of a flow file (*.flow.json), generated from the zod contract. */
export function flowFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(FlowFileShape, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any', reused: 'ref' }) as Record<string, unknown>;
  return { ...schema, $id: FLOW_FILE_SCHEMA_ID, title: 'svc flow file', description: 'A flow: named, parameterised steps that tests run with a "use" step. See docs/test-format.md (Flows).' };
}
