/**
 * issue 9 item 1 · a long final answer is never lost, on Discord too: over
 * Discord's 2,000 characters (the platform module's `maxChars`) it goes out
 * as several messages, cut at line breaks, and only the first notifies — the
 * rest are sent with SUPPRESS_NOTIFICATIONS. A ``` code block split across
 * parts is closed at the end of one part and reopened with its info string
 * in the next, each part within 2,000 characters with its fences (issue 9 audit).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordE2E, landed, SUPPRESS_NOTIFICATIONS, startDiscordE2E } from './harness.js';

let e: DiscordE2E;
afterEach(async () => {
  await e.stop();
});

describe('discord E2E: a long answer', () => {
  it('5,000 lines arrive whole, in order, in messages within 2,000 characters; only the first notifies', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    await e.quiet();
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} of the answer`);
    e.send({ type: 'answer', turnId: 'T1', text: lines.join('\n') });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // ~70 parts at Discord's 5 messages per 5 s in a channel.
    await e.advance(150_000, 500);
    const answers = landed(e.creates()).filter((c) => c.thread === null && c.messageId !== root.messageId);
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(30);
    expect(answers.every((c) => (c.text?.length ?? 0) <= 2000)).toBe(true);
    expect(answers.flatMap((c) => c.text?.split('\n') ?? [])).toEqual(lines);
    expect(answers.map((c) => c.notifies)).toEqual([true, ...answers.slice(1).map(() => false)]);
    expect(answers.slice(1).every((c) => ((c.details?.flags as number) & SUPPRESS_NOTIFICATIONS) !== 0)).toBe(
      true,
    );
    expect(e.runtime.turn('T1')).toMatchObject({ outcome: 'ok', deadLetters: 0 });
  });

  it('a code block longer than a part arrives as whole ```ts blocks, each within 2,000 characters', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    await e.quiet();
    const code = Array.from({ length: 300 }, (_, i) => `const value${i} = compute(${i});`);
    e.send({
      type: 'answer',
      turnId: 'T1',
      text: ['Here:', '', '```ts', ...code, '```', '', 'Done.'].join('\n'),
    });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(30_000, 500);
    const answers = landed(e.creates()).filter((c) => c.thread === null && c.messageId !== root.messageId);
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(3);
    const texts = answers.map((c) => c.text ?? '');
    expect(texts.every((t) => t.length <= 2000)).toBe(true);
    for (const text of texts.filter((t) => t.includes('const value'))) {
      const lines = text.split('\n');
      const open = lines.indexOf('```ts');
      expect(open).toBeGreaterThanOrEqual(0);
      expect(lines.findIndex((l) => l.startsWith('const value'))).toBeGreaterThan(open);
      expect(lines.indexOf('```', open + 1)).toBeGreaterThan(
        lines.findLastIndex((l) => l.startsWith('const value')),
      );
    }
    expect(texts.flatMap((t) => t.split('\n')).filter((l) => l.startsWith('const value'))).toEqual(code);
    expect(answers.map((c) => c.notifies)).toEqual([true, ...answers.slice(1).map(() => false)]);
  });
});
