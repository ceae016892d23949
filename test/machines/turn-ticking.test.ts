// spec: Discord E2E (issue 12 items 5 and 7) at the machine level, on a simulated clock: while a turn's
// log is live and quiet a typing indicator is refreshed about every 8 s (not while entries are coming, none
// after the end, backing off for a 429's Retry-After); a platform without one (Google Chat) never ticks; a
// turn longer than an hour rolls its log over to a fresh, silent message before the platform's edit window
// closes, so no edit ever reaches a message an hour old. The emulator's side (30046, typing through the
// budget) is in test/e2e/discord/ticking.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import type { TurnInput } from '../../machines/turn.machine.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { provideTurnMachine } from '../../src/runtime/turn.implementations.js';
import { type ChatSurface, SurfaceError } from '../../src/surfaces/surface.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { defaultSettings, entry, settle, startTurn } from './turn.helpers.js';

const SPACE = 'discord:1800000000000000001';
const HOUR_MS = 60 * 60_000;

interface Typed {
  at: number;
  threadId: string | undefined;
}

/**
 * A Discord-like memory surface: Discord's capabilities (its 55-minute edit
 * window) and a typing indicator that records when it was shown, failing
 * with the errors a test queues.
 */
function discordTurn() {
  const clock = new SimulatedClock();
  const memory = createMemorySurface({ platform: 'discord', now: () => clock.now() });
  const typed: Typed[] = [];
  const typingFailures: SurfaceError[] = [];
  const surface: ChatSurface & { memory: MemorySurface } = {
    platform: memory.platform,
    capabilities: memory.capabilities,
    post: (req, opts) => memory.post(req, opts),
    edit: (req, opts) => memory.edit(req, opts),
    react: (req, opts) => memory.react(req, opts),
    async typing(req) {
      const failure = typingFailures.shift();
      if (failure) throw failure;
      typed.push({ at: clock.now(), threadId: req.threadId });
    },
    memory,
  };
  const root = memory.inbound({ space: SPACE, text: 'please fix the build' });
  const machine = provideTurnMachine({
    platforms: builtinPlatforms,
    surfaces: surface,
    budget: 'unlimited',
    // The log's own typing (issue 12); a runtime's turns type through their presence (issue 26).
    typingInLog: true,
    now: () => clock.now(),
  });
  const input: TurnInput = {
    turnId: 'T1',
    space: SPACE,
    anchor: { rootMessageId: root.messageId, threadId: root.threadId },
    settings: defaultSettings,
  };
  const actor = createActor(machine, { clock, input });
  actor.start();
  const advance = async (ms: number, step = 1000) => {
    for (let left = ms; left > 0; left -= step) {
      clock.increment(Math.min(step, left));
      await settle();
    }
  };
  const writes = () => memory.calls.filter((c) => c.op === 'create' || c.op === 'update');
  return { clock, surface, memory, actor, typed, typingFailures, advance, writes, root };
}

let stopActor: (() => void) | undefined;
afterEach(() => {
  stopActor?.();
  stopActor = undefined;
});

describe('typing while the log is live and quiet', () => {
  it('shows typing in the thread about every 8 s while quiet, not while entries come, and none after the end', async () => {
    const t = discordTurn();
    stopActor = () => t.actor.stop();
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read a.ts') });
    await settle();
    const posted = t.clock.now();
    const thread = t.writes()[0]?.thread;
    expect(thread).toBeTruthy();
    expect(t.actor.getSnapshot().matches({ opened: 'ticking' })).toBe(true);

    await t.advance(40_000);
    // Quiet for 40 s: one indicator every 8 s (a Discord typing indicator lasts 10 s), in the log's thread.
    expect(t.typed.map((x) => x.at - posted)).toEqual([8000, 16000, 24000, 32000, 40000]);
    expect(t.typed.every((x) => x.threadId === thread)).toBe(true);

    // Entries every 3 s: the log is being edited, so no typing; it comes back once they stop.
    const busyFrom = t.clock.now();
    for (let i = 0; i < 5; i += 1) {
      t.actor.send({ type: 'turn.log', entry: entry(`tool: Read busy-${i}.ts`) });
      await t.advance(3000);
    }
    expect(t.typed.filter((x) => x.at > busyFrom)).toEqual([]);
    await t.advance(10_000);
    expect(t.typed.filter((x) => x.at > busyFrom)).toHaveLength(1);

    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await settle();
    const endedAt = t.clock.now();
    await t.advance(60_000);
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.typed.filter((x) => x.at >= endedAt)).toEqual([]);
  });

  it("backs off for a 429's Retry-After, then ticks again", async () => {
    const t = discordTurn();
    stopActor = () => t.actor.stop();
    t.typingFailures.push(
      new SurfaceError('rate-limited', 'typing: HTTP 429', { status: 429, retryAfterMs: 30_000 }),
    );
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read a.ts') });
    await settle();
    const posted = t.clock.now();
    await t.advance(60_000);
    // 8 s: refused (429) → nothing for 30 s → 38 s ticks again 8 s later, at 46 s, then 54 s.
    expect(t.typed.map((x) => x.at - posted)).toEqual([46_000, 54_000]);
  });

  it('a failed indicator (not a 429) is advisory: the turn goes on, and the next tick tries again', async () => {
    const t = discordTurn();
    stopActor = () => t.actor.stop();
    t.typingFailures.push(new SurfaceError('forbidden', 'typing: HTTP 403', { status: 403 }));
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read a.ts') });
    await settle();
    const posted = t.clock.now();
    await t.advance(20_000);
    expect(t.typed.map((x) => x.at - posted)).toEqual([16_000]);
    expect(t.actor.getSnapshot().context.warnings).toEqual([]);
  });

  it('restarted from its snapshot, the turn starts its clock again (timers are not restored)', async () => {
    const t = discordTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read a.ts') });
    await settle();
    await t.advance(4000);
    const persisted = t.actor.getPersistedSnapshot();
    t.actor.stop();
    const restored = createActor(
      provideTurnMachine({
        platforms: builtinPlatforms,
        surfaces: t.surface,
        budget: 'unlimited',
        typingInLog: true,
        now: () => t.clock.now(),
      }),
      { clock: t.clock, snapshot: persisted, input: undefined as never },
    );
    stopActor = () => restored.stop();
    restored.start();
    restored.send({ type: 'turn.recover' });
    const recoveredAt = t.clock.now();
    await t.advance(10_000);
    expect(t.typed.map((x) => x.at - recoveredAt)).toEqual([8000]);
  });
});

describe('a platform without typing or an edit window (Google Chat)', () => {
  it('stays live with no timer: no typing, no call while the turn is quiet', async () => {
    const t = startTurn();
    stopActor = () => t.actor.stop();
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read a.ts') });
    await settle();
    expect(t.state()).toEqual({ opened: 'live' });
    const calls = t.surface.calls.length;
    await t.advance(2 * HOUR_MS);
    expect(t.surface.calls).toHaveLength(calls);
    expect(t.state()).toEqual({ opened: 'live' });
  });
});

describe('the edit window (Discord: no edits to a message an hour old)', () => {
  it('a turn of more than an hour rolls its log over to a fresh, silent message before the window closes; no edit reaches an hour-old message', async () => {
    const t = discordTurn();
    stopActor = () => t.actor.stop();
    // An entry every 7 minutes for 2.5 hours, with quiet stretches between (the typing keeps ticking).
    for (let minute = 0; minute <= 150; minute += 7) {
      t.actor.send({ type: 'turn.log', entry: entry(`tool: Read minute-${minute}.ts`) });
      await t.advance(7 * 60_000, 2000);
    }
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await t.advance(10_000);
    expect(t.actor.getSnapshot().status).toBe('done');

    const creates = t.writes().filter((c) => c.op === 'create' && c.status < 300);
    const postedAt = new Map(creates.map((c) => [c.messageId, c.at]));
    const edits = t.writes().filter((c) => c.op === 'update');
    expect(edits.length).toBeGreaterThan(10);
    for (const edit of edits) {
      const age = edit.at - postedAt.get(edit.messageId)!;
      expect(age).toBeLessThan(HOUR_MS);
    }
    // 2.5 hours: three log messages, each rolled over at its 55th minute; only the first one notifies.
    expect(creates).toHaveLength(3);
    expect(creates.map((c) => c.notifies)).toEqual([true, false, false]);
    const gaps = creates.slice(1).map((c, i) => c.at - creates[i]!.at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(55 * 60_000);
      expect(gap).toBeLessThan(56 * 60_000);
    }
    // Every entry is shown once in the end: the finished messages keep theirs, the live one shows the rest.
    const shown = t.memory
      .messages(SPACE)
      .filter((m) => m.id !== t.root.messageId)
      .map((m) => m.text)
      .join('\n');
    for (let minute = 0; minute <= 150; minute += 7) {
      expect(shown.split(`minute-${minute}.ts`)).toHaveLength(2);
    }
    // The last message shows the end.
    expect(t.memory.messages(SPACE).at(-1)?.text).toMatch(/^✅/);
  });
});
