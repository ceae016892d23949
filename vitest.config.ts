import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that must get a module graph of their own: they replace a
 * module with `vi.mock`, which only takes effect when that module is
 * evaluated for this file.
 */
const ISOLATED = ['test/runtime/crashed-turns.test.ts'];

export default defineConfig({
  test: {
    setupFiles: ['test/setup/fast-check.ts', 'test/setup/file-scope.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one, so a single worker on 2 cores;
    // most files wait on sockets and child processes as much as they compute.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // Files share their worker's module graph: the platform SDKs and the
          // sources load once per worker, not once per file (issue 24 item 4).
          // test/setup/file-scope.ts puts back what a file may leave behind.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'machines/**/*.ts'],
      exclude: ['src/cli/**', 'bench/**'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: {
        'src/events/**': { lines: 90 },
        'src/turnlog/**': { lines: 90 },
        'src/routing/**': { lines: 90 },
      },
    },
  },
});
