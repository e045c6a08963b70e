import { z } from 'zod';
import { ProjectCreateInput, ProjectSchema } from '/work/main/packages/core/src/contracts/project.ts';
import { TestSchema, TestCreateInput, TestType } from '/work/main/packages/core/src/contracts/test.ts';
import { listResponse } from '/work/main/packages/core/src/contracts/common.ts';
const reg = z.registry<{ id: string }>();
reg.add(ProjectCreateInput, { id: 'ProjectCreateInput' });
reg.add(TestCreateInput, { id: 'TestCreateInput' });
reg.add(TestType, { id: 'TestType' });
const L = listResponse(TestSchema);
reg.add(L, { id: 'TestList' });
reg.add(TestSchema, { id: 'Test' });
const out = z.toJSONSchema(reg, { target: 'draft-2020-12', io: 'input', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any',
  override: (ctx) => { if (ctx.zodSchema === ProjectCreateInput) console.log('override pipe', JSON.stringify(ctx.jsonSchema).slice(0,200)); } });
console.log(JSON.stringify(out, null, 1).slice(0, 4000));
