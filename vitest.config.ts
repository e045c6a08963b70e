import { defineConfig } from 'vitest/config';

// One config for the whole monorepo: unit tests live beside the code they test
// (packages/*/src/**/*.test.ts), cross-package tests under test/.
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    // expect.poll waits for a state a real browser or server reaches in its own time; the
    // default 1 s is too short on a loaded 2-core CI machine (a dashboard section still
    // said "Loading…" after 1 s there). A poll that never succeeds still fails, later.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
});
