// Regenerates schemas/*.json from the zod contracts: `npm run schemas`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowFileJsonSchema, testFileJsonSchema } from '../packages/core/src/contracts/test-file-schema.ts';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'schemas', 'test-file.schema.json'), JSON.stringify(testFileJsonSchema(), null, 2) + '\n');
console.log('wrote schemas/test-file.schema.json');
writeFileSync(join(root, 'schemas', 'flow-file.schema.json'), JSON.stringify(flowFileJsonSchema(), null, 2) + '\n');
console.log('wrote schemas/flow-file.schema.json');
