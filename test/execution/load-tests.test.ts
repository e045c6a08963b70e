import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTests, loadTestSuite, TestFileError, type InvalidTest } from '../../packages/functions/src/execution/load-tests.ts';
import { selectInvalidTests, selectTests } from '../../packages/functions/src/execution/select-tests.ts';
import type { SuiteTest } from '../../packages/core/src/execution/run-suite.ts';

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

describe('a file with a byte-order mark', () => {
  it('loads (Notepad and PowerShell save JSON with one; JSON.parse refused it with an invisible character)', async () => {
    const folder = join(dir, 'bom');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'saved-by-notepad.json'), `\uFEFF${JSON.stringify(test('bom'))}`);
    expect((await loadTests(folder, dir)).map((t) => t.id)).toEqual(['bom']);
  });
});

describe('an upload whose base64 content is not base64', () => {
  it('is an invalid test naming the field (Node decoded the junk as best it could, and the step passed)', async () => {
    const folder = join(dir, 'upload');
    await mkdir(folder, { recursive: true });
    const upload = (content: string) => ({ type: 'upload', selector: '#file', files: [{ name: 'a.bin', content, encoding: 'base64' }] });
    await writeFile(join(folder, 'bad.json'), JSON.stringify({ name: 'bad', type: 'ui', steps: [{ type: 'goto', url: '/' }, upload('!!!not base64***')] }));
    await writeFile(join(folder, 'good.json'), JSON.stringify({ name: 'good', type: 'ui', steps: [upload('aGVs\nbG8='), upload('{{payload}}')] }));
    const { tests, invalid } = await loadTestSuite(folder, dir);
    expect(tests.map((t) => t.definition.name)).toEqual(['good']);
    expect(invalid.map((t) => t.problems)).toEqual([['upload/bad.json: steps.1.files.0.content (step 2): not valid base64 (the file says encoding: base64)']]);
  });
});

describe('loading a suite with invalid tests', () => {
  it('one bad test of a suite file is invalid on its own; the file’s other tests and other files load; each invalid test keeps its place', async () => {
    const folder = join(dir, 'mixed');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.json'), JSON.stringify(test('first')));
    await writeFile(join(folder, 'b.json'), JSON.stringify({ tests: [test('second'), { id: 'typo', name: 'typo', tags: ['smoke'], steps: [{ type: 'request', url: '/' }, { type: 'reqest', url: '/' }] }, test('third')] }));
    await writeFile(join(folder, 'c.json'), '[1, 2');
    const { tests, invalid } = await loadTestSuite(folder, dir);
    expect(tests.map((t) => t.id)).toEqual(['first', 'second', 'third']);
    expect(invalid).toEqual([
      // No type in the file: read from its steps (a request: api).
      { id: 'typo', name: 'typo', file: 'mixed/b.json', type: 'api', tags: ['smoke'], position: 2, problems: [
        'mixed/b.json: tests.1.type: required (expected one of "ui"|"api"|"db")',
        'mixed/b.json: tests.1.steps.1.type (step 2): unknown type "reqest"; did you mean "request"? (expected one of goto, click, dblclick, fill, type, press, select, check, uncheck, hover, upload, scroll, wait-for, screenshot, mock, request, sql, assert, extract, use)',
      ] },
      { id: 'mixed/c.json', name: 'mixed/c.json', file: 'mixed/c.json', type: 'ui', position: 3, problems: [expect.stringMatching(/^mixed\/c\.json: not valid JSON \(/)] },
    ]);
    // svc export writes nothing from an invalid test: loadTests still refuses the lot.
    await expect(loadTests(folder, dir)).rejects.toBeInstanceOf(TestFileError);
  });

  it('an invalid flow file is reported as its own entry; a test that uses its flow is told the flow is invalid, one that does not still loads', async () => {
    const folder = join(dir, 'flows');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'login.flow.json'), JSON.stringify({ name: 'login', steps: [{ type: 'goto' }] }));
    await writeFile(join(folder, 'uses.json'), JSON.stringify({ name: 'uses', type: 'ui', steps: [{ type: 'use', flow: 'Login' }] }));
    await writeFile(join(folder, 'plain.json'), JSON.stringify({ name: 'plain', type: 'ui', steps: [{ type: 'goto', url: '/' }] }));
    const { tests, invalid } = await loadTestSuite(folder, dir);
    expect(tests.map((t) => t.definition.name)).toEqual(['plain']);
    expect(invalid.map((t) => [t.name, t.problems])).toEqual([
      ['flow file flows/login.flow.json', ['flows/login.flow.json: steps.0.url: required']],
      ['uses', ['flows/uses.json: steps.0.flow (step 1): flow "Login" is invalid (flows/login.flow.json); fix it first']],
    ]);
  });

  it('--grep and --tag keep the invalid tests they name, placed again among the tests kept', () => {
    const loaded = ['a', 'b', 'c'].map((id) => ({ id, definition: { name: id, tags: id === 'c' ? ['smoke'] : [] } })) as unknown as SuiteTest[];
    const bad: InvalidTest = { id: 'x', name: 'c broken', file: 'x.json', type: 'ui', problems: ['x.json: oops'], position: 2, tags: ['smoke'] };
    const byTag = selectTests(loaded, { tags: ['smoke'] });
    expect(selectInvalidTests([bad], loaded, byTag, { tags: ['smoke'] })).toEqual([{ ...bad, position: 0 }]);
    expect(selectInvalidTests([bad], loaded, loaded, { grep: /^a/ })).toEqual([]);
    expect(selectInvalidTests([{ ...bad, tags: undefined }], loaded, byTag, { tags: ['smoke'] })).toEqual([]);
  });
});
