import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
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
