import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets CI print a one-line total ("N passed, N failed") after vitest's own summary.
    reporters: ['default', 'json'],
    outputFile: { json: 'node_modules/.cache/user-group-mock/vitest-results.json' },
    tags: [
      {
        name: 'slow',
        description:
          'spawns processes or sends thousands of requests (test/reliability); skip with --tags-filter="!slow"',
        timeout: 240_000,
      },
    ],
  },
});
