import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The dependency arrows, checked by machine: web → (HTTP) → functions → core. */
const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|js|mjs)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(p);
  }
  return out;
}

const importsOf = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);

describe('architecture boundaries', () => {
  const core = sources(join(root, 'packages/core/src'));

  it('core has source files to check', () => {
    expect(core.length).toBeGreaterThan(10);
  });

  it('core imports no AWS SDK, no Hono, no adapter package', () => {
    const offenders: string[] = [];
    for (const file of core) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (/^@aws-sdk\/|^aws-sdk|^@aws-lambda-powertools|^hono|^@hono\/|^@svc\/(functions|web)|packages\/(functions|web)/.test(spec)) {
          offenders.push(`${relative(root, file)} imports ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('core never reads process.env', () => {
    const offenders = core.filter((f) => /process\s*\.\s*env|process\[['"]env['"]\]/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  it('web does not import functions or core code (it talks HTTP)', () => {
    const web = sources(join(root, 'packages/web'));
    const offenders = web.flatMap((f) => importsOf(readFileSync(f, 'utf8')).filter((s) => /@svc\/(functions|core)|packages\/(functions|core)/.test(s)).map((s) => `${relative(root, f)} imports ${s}`));
    expect(offenders).toEqual([]);
  });
});
