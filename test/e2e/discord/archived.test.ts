/**
 * Discord end to end (issue 12 item 7, 50083): a person closes the log's
 * thread mid-turn. The next edit is refused (50083 Thread is archived); the
 * surface reopens the thread (`PATCH /channels/{thread} {archived: false}`)
 * and sends the edit again, so the turn goes on in the same message. When the
 * thread cannot be reopened (the bot may not manage threads: 403), the log
 * goes on in a fresh message in the thread, which Discord's create reopens,
 * and the turn's warnings say why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNEL, type DiscordE2E, landed, SUPPRESS_NOTIFICATIONS, startDiscordE2E } from './harness.js';

let e: DiscordE2E;
afterEach(async () => {
  await e.stop();
});

const tool = (n: number) =>
  e.send({
    type: 'tool_call',
    turnId: 'T1',
    callId: `c${n}`,
    tool: 'Read',
    input: { path: `src/file-${n}.ts` },
  });

async function turnWithClosedThread(): Promise<{ thread: string; log: string }> {
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  tool(0);
  await e.advance(2000);
  const [log] = e.thread(root.messageId);
  // A person closes the thread.
  e.emulator.archiveThread(root.messageId);
  tool(1);
  e.send({ type: 'answer', turnId: 'T1', text: 'Done.' });
  e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  await e.advance(10_000);
  return { thread: root.messageId, log: log!.id };
}

const archivedFlag = (e: DiscordE2E, thread: string) =>
  e.calls().filter((c) => c.method === 'PATCH' && c.path === `/api/v10/channels/${thread}`);

describe('discord E2E: an archived thread (50083)', () => {
  it('reopens the thread and goes on editing the same log message', async () => {
    e = await startDiscordE2E();
    const { thread, log } = await turnWithClosedThread();

    const refused = e.updates().filter((c) => c.status === 400);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.messageId).toBe(log);
    // The person's close, then the bot's reopen.
    expect(archivedFlag(e, thread).map((c) => [c.status, c.details?.archived])).toEqual([
      [200, true],
      [200, false],
    ]);
    const messages = e.thread(thread);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.id).toBe(log);
    expect(messages[0]?.text).toContain('file-1.ts');
    expect(messages[0]?.text).toContain('✅ Done');
    expect(e.messages(CHANNEL).some((m) => m.text === 'Done.')).toBe(true);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
  });

  it('cannot reopen it (403): goes on in a fresh, silent message in the thread, the reason in the turn’s warnings', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u0');
    await e.faults([{ method: 'PATCH', path: `/\\/channels\\/${root.messageId}$/`, status: 403, times: 1 }]);
    // The fault names the thread the next turn's log goes in: the person's message of that turn.
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u0' });
    tool(0);
    await e.advance(2000);
    const [first] = e.thread(root.messageId);
    e.emulator.archiveThread(root.messageId);
    tool(1);
    e.send({ type: 'answer', turnId: 'T1', text: 'Done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(10_000);

    expect(archivedFlag(e, root.messageId).map((c) => c.status)).toEqual([200, 403]);
    // The turn's warnings (GET /v1/turns/:id) say why its log moved to a new message.
    expect(e.runtime.turn('T1')?.warnings).toEqual([
      expect.stringMatching(
        /^log message not editable, the log goes on in a new one: .*is archived and could not be reopened/,
      ),
    ]);
    const messages = e.thread(root.messageId);
    expect(messages.map((m) => m.id)).toEqual([first!.id, messages[1]!.id]);
    expect(messages[1]?.text).toContain('file-1.ts');
    expect(messages[1]?.text).toContain('✅ Done');
    const fresh = landed(e.creates()).find((c) => c.messageId === messages[1]!.id);
    expect((fresh?.details?.flags as number) & SUPPRESS_NOTIFICATIONS).toBe(SUPPRESS_NOTIFICATIONS);
    // The fresh message reopened the thread.
    expect(fresh?.details).toMatchObject({ unarchived: true });
    expect(e.messages(CHANNEL).some((m) => m.text === 'Done.')).toBe(true);
  });
});
