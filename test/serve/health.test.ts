/** `/healthz`'s check of the surfaces: each `ready()` within a bound; no `ready()` counts as ready. */
import { describe, expect, it } from 'vitest';
import { checkSurfaces } from '../../src/serve/health.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';

const withReady = (ready: ChatSurface['ready']): ChatSurface => {
  const { platform, capabilities, post, edit, react } = createMemorySurface({ platform: 'slack' });
  return { platform, capabilities, post, edit, react, ...(ready ? { ready } : {}) };
};

describe('checkSurfaces', () => {
  it('counts a surface without ready() as ready', async () => {
    expect(await checkSurfaces({ slack: withReady(undefined) }, 1000)).toEqual([]);
  });

  it('names a surface whose ready() never answers within the bound', async () => {
    const problems = await checkSurfaces(
      { gchat: createMemorySurface(), slack: withReady(() => new Promise<boolean>(() => {})) },
      1,
    );
    expect(problems).toEqual([{ surface: 'slack', reason: 'ready() did not answer within 1 ms' }]);
  });
});
