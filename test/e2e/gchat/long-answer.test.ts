/**
 * A long final answer is never lost (issue 9 item 1): over the platform's
 * limit (the surface's `capabilities.maxChars`, 4096 on Google Chat) it goes
 * out as several top-level messages, cut at paragraph or line breaks, else
 * hard; Google Chat refuses none of them (it refused 40,000 characters whole).
 * Only the first part notifies: parts 2..N are created with
 * `createMessageNotificationOptions.notificationType: NOTIFICATION_TYPE_SILENT`.
 * A ``` code block split across parts is closed and reopened (with its info
 * string) so every part shows its code as code (issue 9 audit).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GCHAT_CAPABILITIES } from '../../../src/platforms/gchat/surface.js';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

async function answerTurn(text: string) {
  e = await startGchatE2E();
  await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
  await e.quiet();
  e.send({ type: 'answer', turnId: 'T1', text });
  e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  // Each part books its own slot: about 30 parts at the space's spacing (~1.1 s) take half a minute.
  await e.advance(90_000);
  return landed(e.creates()).filter((c) => c.thread === null);
}

describe('gchat E2E: a long answer', () => {
  it('40,000 "A"s arrive whole, in order, as messages within the limit', async () => {
    const answers = await answerTurn('A'.repeat(40_000));
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers).toHaveLength(Math.ceil(40_000 / GCHAT_CAPABILITIES.maxChars));
    expect(answers.map((c) => c.text).join('')).toBe('A'.repeat(40_000));
    expect(answers.every((c) => (c.text?.length ?? 0) <= GCHAT_CAPABILITIES.maxChars)).toBe(true);
    // One notification for the whole answer: the emulator counts a silent create as notifying no one.
    expect(answers.map((c) => c.notifies)).toEqual([true, ...answers.slice(1).map(() => false)]);
    expect(answers[0]?.details?.notificationType).toBeUndefined();
    expect(answers.slice(1).map((c) => c.details?.notificationType)).toEqual(
      answers.slice(1).map(() => 'NOTIFICATION_TYPE_SILENT'),
    );
    expect(e.runtime.turn('T1')).toMatchObject({ outcome: 'ok' });
    // Each part's requestId is the first one's plus its number (issue 9 audit: they grew by one suffix a part,
    // `…:answer:2-1-2-3-4-5`, quadratic in the number of parts).
    const [first, ...rest] = answers.map((c) => String(c.details?.requestId));
    expect(rest).toEqual(rest.map((_, i) => `${first}-${i + 1}`));
  });

  it('5,000 lines arrive whole, each message cut at a line break', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} of the answer`);
    const answers = await answerTurn(lines.join('\n'));
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.flatMap((c) => c.text?.split('\n') ?? [])).toEqual(lines);
  });

  it('a code block longer than a part arrives as whole ```ts blocks, each within the limit', async () => {
    const code = Array.from({ length: 1000 }, (_, i) => `const value${i} = compute(${i});`);
    const answers = await answerTurn(
      ['Here is the file:', '', '```ts', ...code, '```', '', 'Done.'].join('\n'),
    );
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(2);
    const texts = answers.map((c) => c.text ?? '');
    expect(texts.every((t) => t.length <= GCHAT_CAPABILITIES.maxChars)).toBe(true);
    for (const text of texts.filter((t) => t.includes('const value'))) {
      const lines = text.split('\n');
      const open = lines.indexOf('```ts');
      expect(open).toBeGreaterThanOrEqual(0);
      expect(lines.at(-1) === '```' || lines.lastIndexOf('```') > open).toBe(true);
      // Every code line sits between the block's fences.
      const first = lines.findIndex((l) => l.startsWith('const value'));
      const last = lines.findLastIndex((l) => l.startsWith('const value'));
      expect(first).toBeGreaterThan(open);
      expect(lines.indexOf('```', open + 1)).toBeGreaterThan(last);
    }
    expect(texts.flatMap((t) => t.split('\n').filter((l) => l.startsWith('const value')))).toEqual(code);
    expect(texts[0]).toMatch(/^Here is the file:/);
    expect(texts.at(-1)).toMatch(/Done\.$/);
  });
});
