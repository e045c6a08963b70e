import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signInPage } from './pages.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const run = promisify(execFile);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-heal-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function heal(input: string | Buffer, extra: string[] = []) {
  const file = join(dir, `in-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, input);
  return run(bin, ['heal', 'rank', '--input', file, ...extra], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
}

const lines = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('svc heal rank (contract, through the real CLI)', () => {
  const page = signInPage();
  const target = page.find((f) => f.id === 'login-btn')!;

  it('prints one JSON line per case, best first, top 10 by default', async () => {
    const input = {
      pages: [{ id: 'login', candidates: signInPage({ buttonId: 'submit' }) }, { id: 'empty', candidates: [] }],
      cases: [
        { id: 'a', page: 'login', target },
        { id: 'b', page: 'nowhere', target },
        { id: 'c', page: 'empty', target },
        { id: 'd', page: 'login', target: {} },
      ],
    };
    const { stdout } = await heal(JSON.stringify(input));
    const out = lines(stdout);
    expect(out.map((l) => l.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(out[0].ranked).toHaveLength(10);
    expect(input.pages[0].candidates[out[0].ranked[0].index].id).toBe('submit');
    for (const r of out[0].ranked) expect(Object.keys(r).sort()).toEqual(['confidence', 'index', 'score']);
    expect(out[1]).toEqual({ id: 'b', ranked: [], error: 'unknown page' });
    expect(out[2]).toEqual({ id: 'c', ranked: [] });
    expect(out[3].ranked).toEqual([]);
    expect(out[3].error).toMatch(/empty/);
  });

  it('--top changes how many entries are printed', async () => {
    const { stdout } = await heal(JSON.stringify({ pages: [{ id: 'p', candidates: page }], cases: [{ id: 'x', page: 'p', target }] }), ['--top', '3']);
    expect(lines(stdout)[0].ranked).toHaveLength(3);
  });

  it.each([
    ['not JSON', '{"pages": [', /not valid JSON/],
    ['not an object', '[1, 2]', /JSON object/],
    ['pages missing', '{"cases": []}', /"pages" must be an array/],
    ['a page without candidates', '{"pages": [{"id": "p"}], "cases": []}', /pages\[0\]\.candidates/],
    ['a case without id', '{"pages": [], "cases": [{"page": "p", "target": {}}]}', /cases\[0\]\.id/],
    ['a case without target', '{"pages": [], "cases": [{"id": "x", "page": "p"}]}', /cases\[0\]\.target/],
  ])('malformed input (%s) exits 2 naming what is wrong', async (_name, input, message) => {
    const err = await heal(input).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(message);
  });

  it('a missing file and a missing --input exit 2', async () => {
    await expect(run(bin, ['heal', 'rank', '--input', join(dir, 'nope.json')], { cwd: root })).rejects.toMatchObject({ code: 2 });
    await expect(run(bin, ['heal', 'rank'], { cwd: root })).rejects.toMatchObject({ code: 2 });
  });

  it('svc heal --help explains the contract', async () => {
    const { stdout } = await run(bin, ['heal', '--help'], { cwd: root });
    expect(stdout).toContain('svc heal rank --input');
    expect(stdout).toContain('"ranked"');
  });

  it('survives non-UTF-8 bytes and lone surrogates in the file', async () => {
    const json = JSON.stringify({ pages: [{ id: 'p', candidates: page }], cases: [{ id: 'x', page: 'p', target: { ...target, text: 'Sign in XX\\ud800' } }] });
    const bytes = Buffer.from(json.replace('XX', '\u0000').replace('\\\\ud800', '\\ud800'), 'utf8');
    const i = bytes.indexOf(0);
    const bad = Buffer.concat([bytes.subarray(0, i), Buffer.from([0xff, 0xfe, 0xc3]), bytes.subarray(i + 1)]);
    const { stdout } = await heal(bad);
    const out = lines(stdout);
    expect(out[0].id).toBe('x');
    expect(page[out[0].ranked[0].index].id).toBe('login-btn');
  });

  it('ranks a 10,000-candidate page', async () => {
    const candidates = Array.from({ length: 10_000 }, (_, i) => ({ tag: 'div', text: `Row ${i}`, classes: ['row'], xpath: `/html/body/div[${i + 1}]` }));
    candidates.push(target as never);
    const { stdout } = await heal(JSON.stringify({ pages: [{ id: 'big', candidates }], cases: [{ id: 'x', page: 'big', target }] }));
    const out = lines(stdout);
    expect(out[0].ranked[0].index).toBe(10_000);
  });
});
