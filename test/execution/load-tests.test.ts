import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTests, TestFileError } from '../../packages/functions/src/execution/load-tests.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-load-tests-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const test = (id: string) => ({ id, name: id, type: 'api', steps: [{ type: 'request', url: '/ok' }] });

describe('loading test files', () => {
  it('a test id used twice names both places: the other file, or the same file', async () => {
    await writeFile(join(dir, 'a.json'), JSON.stringify(test('same')));
    await writeFile(join(dir, 'b.json'), JSON.stringify({ tests: [test('same'), test('twice'), test('twice')] }));
    const err = await loadTests(dir, dir).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(TestFileError);
    expect((err as TestFileError).problems).toEqual(['b.json: duplicate test id same (also in a.json)', 'b.json: duplicate test id twice (twice in this file)']);
  });
});
