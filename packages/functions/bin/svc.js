#!/usr/bin/env node
// Entry point of the `svc` command. It runs the built CLI (packages/functions/dist, made by
// `npm run build`, which the root `prepare` runs on `npm ci`) while that build matches the
// sources on disk exactly; otherwise — no build, or any source edited since — it runs the
// TypeScript sources through tsx's loader, so a change is never shadowed by a stale build.
// SVC_CLI_FROM_SOURCE=1 forces the sources.
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { DIST_DIR, distIsFresh, mainOf } from './cli-build.mjs';

// Node >= 22.1 keeps the compiled code of svc and its dependencies (Playwright is ~0.3 s
// to compile) in a cache on disk, so later starts skip compiling. A no-op on older Node;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, NODE_COMPILE_CACHE=<dir> moves it.
module.enableCompileCache?.();

let main;
if (process.env.SVC_CLI_FROM_SOURCE !== '1' && distIsFresh()) {
  // Source maps stay off: Playwright captures a stack trace on every API call, and mapping
  // them cost ~20 ms of CPU per test in bench:execution. NODE_OPTIONS=--enable-source-maps maps
  // stack traces to the TypeScript sources when debugging svc itself.
  ({ main } = await import(pathToFileURL(mainOf(DIST_DIR)).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
