/**
 * Every write through the budget (issue 14 item 2) and cards that never
 * starve answers (issue 9 item 7): a memory surface that enforces Google
 * Chat's 60 writes a minute per space (a sliding window, a 429 past it) sees
 * no refusal from a busy space — creates, edits, answers and cards alike —
 * and under a flood of policy cards every answer still lands promptly.
 * Simulated clock throughout.
 */

import { describe, expect, it } from 'vitest';
import type { SimulatedClock } from 'xstate';
import { SimulatedClock as Clock } from 'xstate';
import { SurfaceError } from '../../src/surfaces/surface.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, settle, startRuntime } from './runtime.helpers.js';

const QUOTA_PER_MINUTE = 60;

interface QuotaSurface {
  surface: MemorySurface;
  /** Writes the quota refused (each a 429 the runtime saw). */
  refusals: () => number;
  /** When each landed write went out, per space. */
  landedAt: (space: string) => number[];
}

/**
 * The memory surface behind a per-space quota: a write (post, edit,
 * reaction, status, typing) past `perMinute` in any 60 s of its space is
 * refused with a 429, as Google Chat does.
 */
function withQuota(inner: MemorySurface, clock: SimulatedClock, perMinute: number): QuotaSurface {
  const times = new Map<string, number[]>();
  let refused = 0;
  const gate = (space: string) => {
    const at = clock.now();
    const recent = (times.get(space) ?? []).filter((t) => t > at - 60_000);
    if (recent.length >= perMinute) {
      refused++;
      throw new SurfaceError('rate-limited', `quota: ${perMinute} writes a minute in ${space}`, {
        status: 429,
        retryAfterMs: 1000,
      });
    }
    recent.push(at);
    times.set(space, recent);
  };
  const surface: MemorySurface = Object.create(inner);
  surface.post = (req, opts) => {
    gate(req.space);
    return inner.post(req, opts);
  };
  surface.edit = (req, opts) => {
    gate(req.space);
    return inner.edit(req, opts);
  };
  surface.react = (req, opts) => {
    gate(req.space);
    return inner.react(req, opts);
  };
  return { surface, refusals: () => refused, landedAt: (space) => times.get(space) ?? [] };
}

async function quotaRuntime(): Promise<{ h: Harness; quota: QuotaSurface }> {
  const clock = new Clock();
  const quota = withQuota(
    createMemorySurface({ platform: 'gchat', now: () => clock.now() }),
    clock,
    QUOTA_PER_MINUTE,
  );
  const h = await startRuntime({ clock, surface: quota.surface });
  return { h, quota };
}

const landedCreates = (h: Harness) => h.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
const answerLanded = (h: Harness, turn: number) =>
  landedCreates(h).some((c) => (c.text ?? '').includes(`answer of turn ${turn}.`));

describe('runtime: every write through the budget', () => {
  it('a busy space (10 turns, 60 tool calls each, cards, answers) under 60/min sees 0 refusals', async () => {
    const { h, quota } = await quotaRuntime();
    const turns = 10;
    for (let t = 0; t < turns; t++) {
      h.userMessage(`u${t}`);
      h.send({ type: 'turn_started', turnId: `T${t}`, rootRef: `u${t}` });
    }
    // Every turn calls a tool every 500 ms (so logs fill and roll over), and asks for a policy decision twice.
    for (let step = 0; step < 60; step++) {
      for (let t = 0; t < turns; t++) {
        const callId = `c${t}-${step}`;
        h.send({
          type: 'tool_call',
          turnId: `T${t}`,
          callId,
          tool: 'Read',
          input: { path: `src/some/rather/long/path/to/a/file-${step}-${'x'.repeat(40)}.ts` },
        });
        h.send({ type: 'tool_result', turnId: `T${t}`, callId, tool: 'Read', ok: true, output: 'ok' });
        if (step % 30 === 10) {
          h.send({
            type: 'policy_request',
            turnId: `T${t}`,
            requestId: `p${t}-${step}`,
            command: 'git',
            args: ['push'],
          });
        }
      }
      await h.advance(500);
    }
    for (let t = 0; t < turns; t++) {
      h.send({ type: 'answer', turnId: `T${t}`, text: `answer of turn ${t}.` });
      h.send({ type: 'turn_ended', turnId: `T${t}`, outcome: 'ok' });
    }
    await h.advance(10 * 60_000);
    await settle();
    for (let t = 0; t < turns; t++) expect(answerLanded(h, t)).toBe(true);
    const cards = h.surface.messages(SPACE).filter((m) => (m.text ?? '').includes('git push'));
    expect(cards).toHaveLength(turns * 2);
    expect(quota.refusals()).toBe(0);
    await h.runtime.stop();
  });

  it('10 turns × 100 policy cards in one space: every answer lands promptly, every card lands, 0 refusals', async () => {
    const { h, quota } = await quotaRuntime();
    const turns = 10;
    const cardsPerTurn = 100;
    for (let t = 0; t < turns; t++) {
      h.userMessage(`u${t}`);
      h.send({ type: 'turn_started', turnId: `T${t}`, rootRef: `u${t}` });
      h.send({ type: 'tool_call', turnId: `T${t}`, callId: `c${t}`, tool: 'Bash', input: { command: 'ls' } });
    }
    await h.advance(2_000);
    for (let t = 0; t < turns; t++) {
      for (let c = 0; c < cardsPerTurn; c++) {
        h.send({
          type: 'policy_request',
          turnId: `T${t}`,
          requestId: `p${t}-${c}`,
          command: 'rm',
          args: [`file-${t}-${c}`],
        });
      }
    }
    await h.advance(5_000);
    // The answers come while about a thousand cards wait for the space's quota.
    const askedAt = h.clock.now();
    for (let t = 0; t < turns; t++) {
      h.send({ type: 'answer', turnId: `T${t}`, text: `answer of turn ${t}.` });
      h.send({ type: 'turn_ended', turnId: `T${t}`, outcome: 'ok' });
    }
    let allAnswered = -1;
    while (h.clock.now() - askedAt < 60_000) {
      await h.advance(500);
      if ([...Array(turns).keys()].every((t) => answerLanded(h, t))) {
        allAnswered = h.clock.now() - askedAt;
        break;
      }
    }
    // Ten answers and ten terminal log frames at about one write a second in the space.
    expect(allAnswered).toBeGreaterThan(0);
    expect(allAnswered).toBeLessThanOrEqual(30_000);
    // The cards go on landing at the space's pace until all are there.
    await h.advance(25 * 60_000);
    const cards = h.surface.messages(SPACE).filter((m) => (m.text ?? '').includes('rm file-'));
    expect(cards).toHaveLength(turns * cardsPerTurn);
    expect(quota.refusals()).toBe(0);
    await h.runtime.stop();
  }, 120_000);
});
