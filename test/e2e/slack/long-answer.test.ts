/**
 * issue 9 item 1 · a long final answer is never lost, on Slack too: over
 * Slack's 40,000 characters it goes out as several messages, and the parts
 * are sized for the text as Slack receives it — `&`, `<` and `>` are sent
 * escaped (`&amp;` is five characters), so an answer of 36,000 characters
 * could come to 90,000 and lose its tail to the cut at 40,000 (found by the
 * issue 9 audit: the turn said `ok`, with no dead letter).
 * A ``` code block split across parts is closed at the end of one part and
 * reopened with its info string in the next, the fences within the limit
 * too (issue 9 audit). Slack has no silent posts: parts 2..N notify as any
 * new message does (docs/platforms.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { landed, type SlackE2E, startSlackE2E } from './harness.js';

const SLACK_MAX = 40_000;
let e: SlackE2E;
afterEach(async () => {
  await e.stop();
});

async function answerTurn(text: string) {
  e = await startSlackE2E();
  await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  await e.quiet();
  e.send({ type: 'answer', turnId: 'T1', text });
  e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  await e.advance(60_000);
  return landed(e.creates()).filter((c) => c.thread === null);
}

const unescapeSlack = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('slack E2E: a long answer', () => {
  it('100,000 "A"s arrive whole, in order, in messages within 40,000 characters', async () => {
    const answers = await answerTurn('A'.repeat(100_000));
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers).toHaveLength(3);
    expect(answers.map((c) => c.text).join('')).toBe('A'.repeat(100_000));
    expect(answers.every((c) => (c.text?.length ?? 0) <= SLACK_MAX)).toBe(true);
    expect(e.runtime.turn('T1')).toMatchObject({ outcome: 'ok', deadLetters: 0 });
  });

  it('an answer full of &, < and > loses nothing to the escaping: every part fits once escaped', async () => {
    const text = `${'a&b<c>'.repeat(6000)}THE END`;
    const answers = await answerTurn(text);
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.every((c) => (c.text?.length ?? 0) <= SLACK_MAX)).toBe(true);
    expect(answers.map((c) => unescapeSlack(c.text ?? '')).join('')).toBe(text);
  });

  it('a code block longer than a part arrives as whole ```ts blocks, each within 40,000 once escaped', async () => {
    const code = Array.from({ length: 2000 }, (_, i) => `if (a < b && c > ${i}) run(${i});`);
    const answers = await answerTurn(['Here:', '', '```ts', ...code, '```', '', 'Done.'].join('\n'));
    expect(e.calls().filter((c) => c.status >= 400)).toEqual([]);
    expect(answers.length).toBeGreaterThan(1);
    const texts = answers.map((c) => c.text ?? '');
    expect(texts.every((t) => t.length <= SLACK_MAX)).toBe(true);
    for (const text of texts.filter((t) => t.includes('run('))) {
      const lines = text.split('\n');
      const open = lines.indexOf('```ts');
      expect(open).toBeGreaterThanOrEqual(0);
      expect(lines.findIndex((l) => l.startsWith('if ('))).toBeGreaterThan(open);
      expect(lines.indexOf('```', open + 1)).toBeGreaterThan(
        lines.findLastIndex((l) => l.startsWith('if (')),
      );
    }
    const codeLines = texts.flatMap((t) => unescapeSlack(t).split('\n')).filter((l) => l.startsWith('if ('));
    expect(codeLines).toEqual(code);
    expect(e.runtime.turn('T1')).toMatchObject({ outcome: 'ok', deadLetters: 0 });
  });
});
