/**
 * Test files share their worker's module graph (vitest.config.ts, `isolate:
 * false`), so what one file changes in the process must not reach the next:
 * after each file, real timers and the real environment are back, whatever
 * the file did or failed to undo.
 */
import { afterAll, vi } from 'vitest';

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
