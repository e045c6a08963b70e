/**
 * The local ASL interpreter (aws-local-stepfunctions 3) calls Promise.withResolvers,
 * which Node 20 — inside svc's engines range — lacks. Without a remedy every Task threw
 * and `svc run` reported each test skipped in 0.0 s. The child process removes the method
 * before anything loads and runs a test through the graph: it must run and pass.
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

describe('the run graph on a runtime without Promise.withResolvers (Node 20)', () => {
  it('still executes every Task: the test runs and passes', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'without-with-resolvers.ts')], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    expect(JSON.parse(out)).toEqual({ status: 'completed', error: null, results: ['passed'], hits: 1 });
  });
});
