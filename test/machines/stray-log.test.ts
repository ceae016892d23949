/**
 * The stray log machine (issue 9 item 7, "Stray events: top-level notes and
 * warnings are coalesced into one edited message per space per minute"):
 * - a stray message a person deleted is replaced: the 404 of its edit posts a
 *   fresh message carrying its content, with one notification, on every platform;
 * - a stray log restored from its persisted snapshot (a restart) keeps
 *   coalescing into the same message for what is left of its minute
 *   (`strays.recover` re-arms its timers), and loses no line it held;
 * - a write that fails after its window closed hands its unshown lines to the next message.
 * Driven with the real implementations on the memory surface and a simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type Snapshot } from 'xstate';
import type { StrayLogContext } from '../../machines/stray-log.machine.js';
import type { Platform } from '../../src/emulators/types.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { restorable } from '../../src/runtime/restorable.js';
import { provideStrayLogMachine } from '../../src/runtime/stray-log.implementations.js';
import type { FrameLine } from '../../src/surfaces/frame.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { settle } from './turn.helpers.js';

const SPACES: Record<Platform, string> = {
  gchat: 'gchat:spaces/AAAA',
  slack: 'slack:C0123',
  discord: 'discord:1800000000000000001',
};

const line = (text: string): FrameLine => ({ kind: 'system', depth: 0, time: '12:00:00', text });

function startStrayLog(
  opts: { platform?: Platform; clock?: SimulatedClock; surface?: MemorySurface; persisted?: unknown } = {},
) {
  const platform = opts.platform ?? 'gchat';
  const space = SPACES[platform];
  const clock = opts.clock ?? new SimulatedClock();
  const surface = opts.surface ?? createMemorySurface({ platform, now: () => clock.now() });
  const deadLetters: string[] = [];
  const logic = restorable(
    provideStrayLogMachine({
      surfaces: surface,
      platforms: builtinPlatforms,
      budget: 'unlimited',
      now: () => clock.now(),
      onDeadLetter: (_space, reason, text) => deadLetters.push(`${reason}: ${text}`),
    }),
  );
  const actor = createActor(logic, {
    clock,
    input: { space, ...(opts.persisted !== undefined ? { persisted: opts.persisted } : {}) },
  });
  actor.start();
  const add = (text: string) => actor.send({ type: 'strays.add', line: line(text), at: clock.now() });
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= 100) {
      clock.increment(Math.min(100, left));
      await settle();
    }
  };
  const creates = () => surface.calls.filter((c) => c.op === 'create' && c.status < 300);
  const updates = () => surface.calls.filter((c) => c.op === 'update' && c.status < 300);
  const context = () => actor.getSnapshot().context as StrayLogContext;
  return { actor, clock, surface, space, add, advance, creates, updates, context, deadLetters };
}

describe('stray log: a deleted stray message is replaced', () => {
  for (const platform of ['gchat', 'slack', 'discord'] as const) {
    it(`${platform}: the 404 of the edit posts a fresh message with every line, notifying once`, async () => {
      const s = startStrayLog({ platform });
      s.add('stray one');
      await s.advance(1_000);
      expect(s.creates()).toHaveLength(1);
      const first = s.creates()[0]?.messageId ?? '';
      s.add('stray two');
      await s.advance(2_000);
      expect(s.updates().map((c) => c.messageId)).toEqual([first]);

      s.surface.deleteMessage(first);
      s.add('stray three');
      await s.advance(2_000);

      const creates = s.creates();
      expect(creates).toHaveLength(2);
      expect(creates[1]?.notifies).toBe(true);
      const fresh = s.surface.messages(s.space).find((m) => m.id === creates[1]?.messageId);
      for (const text of ['stray one', 'stray two', 'stray three']) expect(fresh?.text).toContain(text);
      expect(s.context().messageId).toBe(creates[1]?.messageId);
      expect(s.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'idle' });

      // The strays after it edit the fresh message, silently.
      s.add('stray four');
      await s.advance(2_000);
      expect(s.creates()).toHaveLength(2);
      expect(s.updates().at(-1)?.messageId).toBe(creates[1]?.messageId);
      s.actor.stop();
    });
  }

  it('a message that cannot be posted either (the space is gone) is not retried for ever: dead letter after the attempts', async () => {
    const s = startStrayLog();
    s.add('stray one');
    await s.advance(1_000);
    const first = s.creates()[0]?.messageId ?? '';
    s.surface.deleteMessage(first);
    s.surface.fail({ op: 'create', status: 404, times: 100 });
    s.add('stray two');
    await s.advance(120_000);
    expect(s.creates()).toHaveLength(1);
    expect(s.actor.getSnapshot().value).toEqual({ window: 'closed', writer: 'idle' });
    expect(s.deadLetters).toHaveLength(1);
    expect(s.deadLetters[0]).toContain('stray two');
    s.actor.stop();
  });
});

describe('stray log: restored from its persisted snapshot (a restart)', () => {
  it('keeps editing the same message for the rest of its minute, then a stray starts a new one', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = startStrayLog({ clock, surface });
    first.add('before the restart');
    await first.advance(10_000);
    const message = first.creates()[0]?.messageId;
    expect(message).toBeDefined();
    const persisted = structuredClone(first.actor.getPersistedSnapshot());
    first.actor.stop();

    await first.advance(20_000); // the process is down for 20 s: 30 s of the minute are gone
    const second = startStrayLog({ clock, surface, persisted });
    second.actor.send({ type: 'strays.recover', now: clock.now() });
    second.add('after the restart');
    await second.advance(2_000);
    expect(second.creates()).toHaveLength(1);
    expect(second.updates().at(-1)?.messageId).toBe(message);
    const text = surface.messages(second.space).find((m) => m.id === message)?.text ?? '';
    expect(text).toContain('before the restart');
    expect(text).toContain('after the restart');

    // The minute that opened at 0 ends at 60 s (not 60 s after the restart).
    await second.advance(29_000);
    second.add('the next minute');
    await second.advance(2_000);
    expect(second.creates()).toHaveLength(2);
    expect(second.creates()[1]?.text).toContain('the next minute');
    expect(second.creates()[1]?.text).not.toContain('before the restart');
    second.actor.stop();
  });

  it('a restart after the minute closes the window: the next stray starts a new message', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = startStrayLog({ clock, surface });
    first.add('before the restart');
    await first.advance(1_000);
    const persisted = structuredClone(first.actor.getPersistedSnapshot());
    first.actor.stop();
    await first.advance(90_000);
    const second = startStrayLog({ clock, surface, persisted });
    second.actor.send({ type: 'strays.recover', now: clock.now() });
    await settle();
    second.add('much later');
    await second.advance(2_000);
    expect(second.creates()).toHaveLength(2);
    expect(second.creates()[1]?.text).not.toContain('before the restart');
    second.actor.stop();
  });

  it('lines waiting for a write when the process stopped (a backoff) go out into the same message after recover', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = startStrayLog({ clock, surface });
    first.add('shown before');
    await first.advance(1_000);
    const message = first.creates()[0]?.messageId;
    surface.fail({ op: 'update', status: 503, times: 1 });
    first.add('waiting in a backoff');
    await first.advance(200);
    expect(first.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'backoff' });
    const persisted = structuredClone(first.actor.getPersistedSnapshot() as Snapshot<unknown>);
    first.actor.stop();

    const second = startStrayLog({ clock, surface, persisted });
    second.actor.send({ type: 'strays.recover', now: clock.now() });
    await second.advance(3_000);
    expect(second.creates()).toHaveLength(1);
    const text = surface.messages(second.space).find((m) => m.id === message)?.text ?? '';
    expect(text).toContain('waiting in a backoff');
    expect(second.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'idle' });
    second.actor.stop();
  });

  it('a post in flight when the process stopped is not posted twice (client id)', async () => {
    for (const platform of ['gchat', 'slack'] as const) {
      const clock = new SimulatedClock();
      const surface = createMemorySurface({ platform, now: () => clock.now() });
      const refs = new Map<string, { messageId: string; threadId?: string }>();
      const store = {
        recordPost: (id: string, m: { messageId: string; threadId?: string }) => void refs.set(id, m),
        lookupPost: (id: string) => refs.get(id),
      };
      const logic = restorable(
        provideStrayLogMachine({
          surfaces: surface,
          platforms: builtinPlatforms,
          budget: 'unlimited',
          store,
          now: () => clock.now(),
        }),
      );
      const space = SPACES[platform];
      const first = createActor(logic, { clock, input: { space } });
      first.start();
      surface.pause();
      first.send({ type: 'strays.add', line: line('in flight'), at: clock.now() });
      await settle();
      const persisted = structuredClone(first.getPersistedSnapshot());
      surface.resume(); // the platform takes the post, the process dies before it hears back
      await settle();
      first.stop();

      const second = createActor(logic, { clock, input: { space, persisted } });
      second.start();
      second.send({ type: 'strays.recover', now: clock.now() });
      await settle();
      const creates = surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.notifies);
      expect(creates, platform).toHaveLength(1);
      expect(
        surface.messages(space).filter((m) => m.text.includes('in flight')),
        platform,
      ).toHaveLength(1);
      second.stop();
    }
  });
});

describe('stray log: a write that fails after its window closed', () => {
  it('hands its unshown lines to the next message, none lost', async () => {
    const s = startStrayLog();
    s.add('first minute');
    await s.advance(1_000);
    s.surface.pause();
    s.add('in flight at the end of the minute');
    await s.advance(60_000); // the window closes while the edit is held
    s.add('the next minute');
    s.surface.fail({ op: 'update', status: 500, times: 1 });
    s.surface.resume();
    await s.advance(10_000);
    const shown = s.surface
      .messages(s.space)
      .map((m) => m.text)
      .join('\n');
    expect(shown).toContain('in flight at the end of the minute');
    expect(shown).toContain('the next minute');
    s.actor.stop();
  });
});

describe('stray log: strays.flush (a graceful stop with flush)', () => {
  it('lines waiting out a back-off go out at once, with no time passing', async () => {
    const s = startStrayLog();
    s.add('shown before');
    await s.advance(1_000);
    const message = s.creates()[0]?.messageId;
    s.surface.fail({ op: 'update', status: 503, times: 1 });
    s.add('waiting in a backoff');
    await settle();
    expect(s.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'backoff' });
    s.actor.send({ type: 'strays.flush' });
    await settle();
    expect(s.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'idle' });
    const text = s.surface.messages(s.space).find((m) => m.id === message)?.text ?? '';
    expect(text).toContain('waiting in a backoff');
    expect(s.creates()).toHaveLength(1);
    s.actor.stop();
  });

  it('an idle log ignores it; a log persisted while flushing books its slot again on recover', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = startStrayLog({ clock, surface });
    first.add('shown before');
    await first.advance(1_000);
    first.actor.send({ type: 'strays.flush' });
    expect(first.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'idle' });
    surface.fail({ op: 'update', status: 503, times: 1 });
    first.add('unshown at the stop');
    await settle();
    expect(first.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'backoff' });
    // Persisted as if the stop's flush came while its terminal slot was being booked.
    const persisted = structuredClone(first.actor.getPersistedSnapshot()) as unknown as { value: unknown };
    persisted.value = { window: 'open', writer: 'flushing' };
    first.actor.stop();

    const second = startStrayLog({ clock, surface, persisted });
    second.actor.send({ type: 'strays.recover', now: clock.now() });
    await settle();
    // Written at once (no back-off waited out), into the same message.
    expect(second.actor.getSnapshot().value).toEqual({ window: 'open', writer: 'idle' });
    expect(second.creates()).toHaveLength(1);
    const text = surface
      .messages(second.space)
      .map((m) => m.text)
      .join('\n');
    expect(text.split('unshown at the stop').length - 1).toBe(1);
    second.actor.stop();
  });
});
