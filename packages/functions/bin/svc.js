#!/usr/bin/env node
// Entry point of the `svc` command. TypeScript sources run through tsx's loader, so a
// fresh clone needs nothing but `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
