/**
 * Discord end to end on a simulated clock (issue 12 items 5 and 7, issue 26
 * item 3): the typing indicator as soon as a turn starts (before its first
 * frame), then every 8 s while it is live (through the budget, backing off
 * on 429, none after the end), and a turn longer than an hour,
 * whose log rolls over before Discord stops taking edits to its message
 * (30046). The machine-level cases are in test/machines/turn-ticking.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../../src/emulators/types.js';
import { DiscordEditWindowError } from '../../../src/platforms/discord/index.js';
import { type DiscordE2E, landed, SPACE, SUPPRESS_NOTIFICATIONS, startDiscordE2E } from './harness.js';

let e: DiscordE2E;
afterEach(async () => {
  await e.stop();
});

const HOUR_MS = 60 * 60_000;
const typings = (calls: RecordedCall[]) => calls.filter((c) => c.details?.typing === true);

const tool = (turnId: string, n: number) =>
  e.send({ type: 'tool_call', turnId, callId: `c${n}`, tool: 'Read', input: { path: `src/file-${n}.ts` } });

describe('discord E2E: typing', () => {
  it('shows typing within a second of the start (before the first frame), then every 8 s while live, none after the end', async () => {
    e = await startDiscordE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    const started = e.clock.now();
    // No entry yet: nothing for the log to post, but the person sees the bot typing.
    await e.advance(1000, 100);
    const first = typings(e.calls());
    expect(first.map((c) => c.status)).toEqual([204]);
    expect(first[0]!.at - started).toBeLessThan(1000);
    expect(e.creates()).toEqual([]);
    // In the channel of the person's message (the log's thread does not exist before its first frame).
    expect(first[0]!.path).toBe(`/api/v10/channels/${SPACE.slice('discord:'.length)}/typing`);

    tool('T1', 0);
    await e.advance(32_000);
    const live = typings(e.calls());
    expect(live.map((c) => c.status)).toEqual([204, 204, 204, 204, 204]);
    const gaps = live.slice(1).map((c, i) => c.at - live[i]!.at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(8000);
      expect(gap).toBeLessThan(8500);
    }

    e.send({ type: 'answer', turnId: 'T1', text: 'Done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    const ended = typings(e.calls()).length;
    await e.advance(60_000);
    expect(typings(e.calls())).toHaveLength(ended);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
  });

  it('backs off on a 429 for its Retry-After, then types again', async () => {
    e = await startDiscordE2E();
    await e.userMessage('u1');
    await e.faults([{ op: 'other', path: '/typing', status: 429, times: 1, retryAfterS: 30 }]);
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    await e.advance(60_000);
    const [refused, ...after] = typings(e.calls());
    expect(refused?.status).toBe(429);
    // Nothing for the Retry-After, then a tick later the indicator again.
    expect(after[0]!.at - refused!.at).toBeGreaterThanOrEqual(30_000);
    expect(after.map((c) => c.status).every((status) => status === 204)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(2);
  });
});

describe('discord E2E: a turn longer than an hour', () => {
  it('rolls the log over to a fresh, silent message before the first turns an hour old: no edit is refused (30046)', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    // A tool call every 5 minutes for 80 minutes.
    for (let n = 0; n <= 16; n += 1) {
      tool('T1', n);
      await e.advance(5 * 60_000, 1000);
    }
    e.send({ type: 'answer', turnId: 'T1', text: 'Done after 80 minutes.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(10_000);

    const creates = landed(e.creates()).filter((c) => c.thread === root.messageId);
    const postedAt = new Map(creates.map((c) => [c.messageId, c.at]));
    const edits = e.updates();
    expect(edits.length).toBeGreaterThan(10);
    expect(edits.filter((c) => c.status >= 300)).toEqual([]);
    for (const edit of edits) expect(edit.at - postedAt.get(edit.messageId)!).toBeLessThan(HOUR_MS);
    // Two log messages: the second, posted at the first's 55th minute, is silent (one buzz per turn).
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(55 * 60_000);
    expect((creates[1]!.details?.flags as number) & SUPPRESS_NOTIFICATIONS).toBe(SUPPRESS_NOTIFICATIONS);
    const [first, second] = e.thread(root.messageId);
    expect(first?.text).toContain('file-10.ts');
    expect(second?.text).toContain('file-16.ts');
    expect(second?.text).not.toContain('file-10.ts');

    // The emulator does refuse what was avoided: an edit to the first message, now over an hour old, is 30046.
    const error = await e.surface
      .edit({
        space: SPACE,
        messageId: first!.id,
        threadId: root.messageId,
        frame: { kind: 'prose', markdown: 'late' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordEditWindowError);
    expect(e.updates().at(-1)).toMatchObject({ status: 400, messageId: first!.id });
  });
});
