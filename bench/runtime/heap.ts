/** Heap measurements after a full garbage collection. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The engine's `gc()`: `globalThis.gc` under `node --expose-gc`, otherwise
 * turned on now (V8 reads `--expose-gc` when it creates a context, so a fresh
 * context has it).
 */
export function exposeGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** `heapUsed` after collecting everything collectable (twice: weak references and finalizers free more on the second pass). */
export function settledHeapUsed(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
