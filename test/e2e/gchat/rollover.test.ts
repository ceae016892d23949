/**
 * docs/test-plan.md, roll-over & length (9–11):
 * the condense strategies through the real runtime, the Google Chat surface
 * and googleapis, read back from the emulator. A rolled-over log's later
 * messages are silent (issue 9: a long turn doesn't buzz once per message).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

let sent = 0;
/** `n` tool calls with distinct, numbered paths (numbering runs on across bursts of a test). */
function burst(n: number): void {
  for (const end = sent + n; sent < end; sent++) {
    e.send({
      type: 'tool_call',
      turnId: 'T1',
      callId: `c${sent}`,
      tool: 'Read',
      input: { path: `src/${'x'.repeat(40)}-${sent}.ts` },
    });
  }
}

async function turnWith(threadLog: Record<string, unknown>) {
  sent = 0;
  e = await startGchatE2E({ config: { visibility: { threadLog } } });
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  return root;
}

describe('gchat E2E: roll-over & length', () => {
  it('9: rolls over to a new thread-log message in the same thread under the rollover strategy', async () => {
    // 290: the headline's room (~90) comes out of it, leaving the log lines the spec's 200.
    const root = await turnWith({ maxLogMessageChars: 290, condenseStrategy: 'rollover' });
    burst(1);
    await e.quiet();
    burst(6);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    const creates = landed(e.creates());
    expect(creates.length).toBeGreaterThanOrEqual(2);
    for (const create of creates) {
      expect(create.thread).toBe(root.threadId);
      expect(create.details?.messageReplyOption).toBe('REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    }
    const logs = e.messages().filter((m) => m.thread === root.threadId && m.id !== root.messageId);
    expect(logs.map((m) => m.id)).toEqual(creates.map((c) => c.messageId));
    expect(logs[0]?.text.endsWith('…log continues')).toBe(true);
    // The second message begins (under its headline) with the entries the first could not show.
    const firstShown = (logs[0]?.text.match(/-\d+\.ts/g) ?? []).length;
    expect(logs[1]?.text.split('\n')[1]).toContain(`-${firstShown}.ts`);
    const all = logs.map((m) => m.text).join('\n');
    for (let i = 0; i < 7; i++) expect(all).toContain(`-${i}.ts`);
    for (const m of logs) expect(m.text.length).toBeLessThanOrEqual(290);
    // issue 9 · a long turn buzzes once: the log's later messages are created with NOTIFICATION_TYPE_SILENT.
    expect(creates.map((c) => c.notifies)).toEqual([true, ...creates.slice(1).map(() => false)]);
    expect(creates.slice(1).every((c) => c.details?.notificationType === 'NOTIFICATION_TYPE_SILENT')).toBe(
      true,
    );
  });

  it('10: drop-earliest keeps one message and drops old entries', async () => {
    await turnWith({ maxLogMessageChars: 200, condenseStrategy: 'drop-earliest' });
    burst(1);
    await e.quiet();
    for (let round = 0; round < 4; round++) {
      burst(3);
      await e.advance(1000);
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // The terminal frame (its headline says done) waits its turn in the space's pacing.
    await e.advance(2000);
    expect(landed(e.creates())).toHaveLength(1);
    const updates = landed(e.updates());
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.every((u) => u.details?.updateMask === 'text')).toBe(true);
    const final = e.messages().find((m) => m.id === e.creates()[0]?.messageId)?.text ?? '';
    // Under the headline, the first line says how many entries were dropped.
    expect(final).toMatch(/^✅ Agent activity · \d+s\n• …\d+ earlier entries dropped/);
    expect(final).toContain('-12.ts');
    expect(final.length).toBeLessThanOrEqual(200);
  });

  it('11: aggressive-truncate keeps every entry with shortened summaries', async () => {
    // 500, not the spec's 300: three lines cut to the last cap (100) plus their `• HH:MM:SS  ✗ Bash — ` prefix
    // take ~365 chars, and the headline's room (~90) comes out of the budget too; at 300 even the shortest
    // cut overflows and the strategy rolls over, as specified.
    await turnWith({ maxLogMessageChars: 500, condenseStrategy: 'aggressive-truncate' });
    for (let i = 0; i < 3; i++) {
      e.send({
        type: 'tool_result',
        turnId: 'T1',
        callId: `c${i}`,
        tool: 'Bash',
        // A failure always says why (a success's long summary is not previewed at all).
        ok: false,
        summary: `${i}${'y'.repeat(300)}`,
      });
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    const creates = landed(e.creates());
    expect(creates).toHaveLength(1);
    const text = e.messages().find((m) => m.id === creates[0]?.messageId)?.text ?? '';
    expect(text.length).toBeLessThanOrEqual(500);
    expect(e.runtime.turn('T1')?.logMessages).toHaveLength(1);
    const [headline, ...lines] = text.split('\n');
    expect(headline).toMatch(/^✅ Agent activity · \d+s$/);
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => {
      expect(line).toContain(`✗ Bash — ${i}y`);
      expect(line).toContain('…[truncated]');
    });
  });
});
