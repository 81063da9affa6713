import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
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
