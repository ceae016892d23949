/**
 * issue 9 item 1 · a long final answer is never lost, on Slack too: over
 * Slack's 40,000 characters it goes out as several messages, and the parts
 * are sized for the text as Slack receives it — `&`, `<` and `>` are sent
 * escaped (`&amp;` is five characters), so an answer of 36,000 characters
 * could come to 90,000 and lose its tail to the cut at 40,000 (found by the
 * issue 9 audit: the turn said `ok`, with no dead letter).
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
});
