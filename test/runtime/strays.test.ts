/**
 * Stray events (issue 9 item 7, docs/test-plan.md): top-level notes and
 * warnings that belong to no live turn are coalesced into one edited message
 * per space per minute, and answers are never queued behind them.
 */
import { describe, expect, it } from 'vitest';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

const STRAYS = 50;

const creates = (h: Harness) => h.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
const topLevelCreates = (h: Harness) => creates(h).filter((c) => c.thread === null);

async function advanceUntil(h: Harness, done: () => boolean, limitMs: number): Promise<number> {
  let waited = 0;
  while (!done() && waited < limitMs) {
    await h.advance(100);
    waited += 100;
  }
  return waited;
}

describe('runtime: stray events', () => {
  it('50 notes for an unknown turn make one notifying message, edited to show them all', async () => {
    const h = await startRuntime();
    for (let i = 0; i < STRAYS; i++) h.send({ type: 'note', turnId: 'T1 ', text: `stray note ${i}` });
    await h.advance(30_000);
    const posted = topLevelCreates(h);
    expect(posted).toHaveLength(1);
    const view = h.surface.messages(SPACE);
    const shown = view.map((m) => m.text ?? '').join('\n');
    for (let i = 0; i < STRAYS; i++) expect(shown).toContain(`stray note ${i}`);
    // The first write posts, later strays go out as edits of that message.
    expect(h.surface.calls.filter((c) => c.op === 'update' && c.status < 300).length).toBeGreaterThan(0);
    await h.runtime.stop();
  });

  it('strays past the platform limit continue in a new message: every note shown, none over the limit', async () => {
    const h = await startRuntime();
    const { maxChars } = h.surface.capabilities;
    const padding = 'x'.repeat(100);
    // Enough notes for two and a half messages.
    const count = Math.ceil((2.5 * maxChars) / padding.length);
    for (let i = 0; i < count; i++) h.send({ type: 'note', turnId: 'T1 ', text: `note ${i} ${padding}` });
    await h.advance(30_000);
    const posted = topLevelCreates(h);
    const view = h.surface.messages(SPACE).filter((m) => m.text?.includes(padding));
    expect(posted.length).toBeGreaterThanOrEqual(3);
    expect(posted.length).toBeLessThanOrEqual(4);
    for (const m of view) expect(m.text?.length ?? 0).toBeLessThanOrEqual(maxChars);
    const shown = view.map((m) => m.text ?? '').join('\n');
    for (let i = 0; i < count; i++) expect(shown).toContain(`note ${i} ${padding}`);
    await h.runtime.stop();
  });

  it('a stray after the minute starts a new message', async () => {
    const h = await startRuntime();
    h.send({ type: 'note', turnId: 'X', text: 'first minute' });
    await h.advance(1_000);
    h.send({ type: 'note', turnId: 'X', text: 'still the first minute' });
    await h.advance(61_000);
    h.send({ type: 'note', turnId: 'X', text: 'second minute' });
    await h.advance(5_000);
    const posted = topLevelCreates(h);
    expect(posted).toHaveLength(2);
    expect(posted[1]?.text).toContain('second minute');
    expect(posted[1]?.text).not.toContain('first minute');
    await h.runtime.stop();
  });

  it('an answer sent after 50 strays lands within seconds, not behind them', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    for (let i = 0; i < STRAYS; i++) h.send({ type: 'note', turnId: 'T1 ', text: `stray note ${i}` });
    h.send({ type: 'answer', turnId: 'T1', text: 'the real answer' });
    const waited = await advanceUntil(
      h,
      () => creates(h).some((c) => (c.text ?? '').includes('the real answer')),
      60_000,
    );
    expect(creates(h).some((c) => (c.text ?? '').includes('the real answer'))).toBe(true);
    expect(waited).toBeLessThanOrEqual(3_000);
    expect(root.messageId).toBeTruthy();
    await h.runtime.stop();
  });
});
