import { z } from 'zod';
import { TestFileShape } from './steps.ts';

export const TEST_FILE_SCHEMA_ID = 'https://svc.dev/schemas/test-file.schema.json';

/** JSON Schema (draft 2020-12) of a test file, generated from the zod contract. */
export function testFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TestFileShape, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any', reused: 'ref' }) as Record<string, unknown>;
  return { ...schema, $id: TEST_FILE_SCHEMA_ID, title: 'svc test file', description: 'One svc test, or a suite { "tests": [...] }. See docs/test-format.md.' };
}
