import { defineConfig } from 'vitest/config';

// One config for the whole monorepo: unit tests live beside the code they test
// (packages/*/src/**/*.test.ts), cross-package tests under test/.
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
});
