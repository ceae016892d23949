// The condenser's budget per message is the lesser of the config's and what the platform accepts:
// no frame exceeds the surface's capabilities (maxChars, maxTextElementChars) on any platform.
import { describe, expect, it } from 'vitest';
import { builtinPlatforms } from '../../src/platforms/all.js';

import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { startRuntime } from '../runtime/runtime.helpers.js';

const SPACES: Record<string, string> = {
  gchat: 'gchat:spaces/AAAA',
  slack: 'slack:C0123ABCD',
  discord: 'discord:123456789012345678',
};

/** A turn of 40 tool calls with long inputs, in 8 bursts; returns every log write. */
async function longTurn(
  platform: string,
  capabilities: { maxChars?: number; maxTextElementChars?: number } = {},
) {
  const space = SPACES[platform]!;
  const h = await startRuntime({
    platform: platform as 'gchat',
    space,
    surface: createMemorySurface({ platform, capabilities }),
  });
  const root = h.surface.inbound({ space, text: 'go' });
  h.send({
    type: 'turn_started',
    turnId: 'T1',
    root: { messageId: root.messageId, threadId: root.threadId },
  });
  for (let burst = 0; burst < 8; burst++) {
    for (let i = 0; i < 5; i++) {
      const n = burst * 5 + i;
      h.send({
        type: 'tool_call',
        turnId: 'T1',
        callId: `c${n}`,
        tool: 'Bash',
        input: { command: `step ${n} ${'x'.repeat(300)}` },
      });
    }
    await h.advance(1500);
  }
  h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  await h.advance(3000);
  const writes = h.surface.calls.filter((c) => c.op === 'create' || c.op === 'update');
  const view = h.runtime.turn('T1');
  await h.runtime.stop();
  return { writes, view };
}

describe('no frame exceeds its platform limit', () => {
  it('Discord (2,000 chars): every log write fits, none is refused, nothing is dead-lettered', async () => {
    const { writes, view } = await longTurn('discord');
    expect(writes.length).toBeGreaterThan(2);
    expect(Math.max(...writes.map((c) => c.text?.length ?? 0))).toBeLessThanOrEqual(2000);
    expect(writes.every((c) => c.status === 200)).toBe(true);
    expect(view?.deadLetters).toBe(0);
    const shown = writes.map((c) => c.text).join('\n');
    for (let n = 0; n < 40; n++) expect(shown).toContain(`step ${n} `);
  });

  it('a per-element limit below maxChars (maxTextElementChars) bounds the frame too', async () => {
    const { writes } = await longTurn('slack', { maxTextElementChars: 1200 });
    expect(Math.max(...writes.map((c) => c.text?.length ?? 0))).toBeLessThanOrEqual(1200);
    expect(writes.every((c) => c.status === 200)).toBe(true);
  });

  it('reads the limits from the platform descriptors', () => {
    expect(builtinPlatforms.require('discord').capabilities.maxChars).toBe(2000);
    expect(createMemorySurface({ platform: 'discord' }).capabilities).toEqual(
      builtinPlatforms.require('discord').capabilities,
    );
  });
});
