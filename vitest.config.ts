import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Names this run's PostgreSQL schemas and drops them at the end.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Two cores: run files in parallel, but no more workers than cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
