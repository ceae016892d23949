/**
 * The log message's headline: the turn's state, title, elapsed clock and
 * what is happening now, carried by every log frame the turn sends.
 */
import { describe, expect, it } from 'vitest';
import type { SurfaceFrame } from '../../src/surfaces/frame.js';
import { entry, settle, startTurn } from './turn.helpers.js';

type Turn = ReturnType<typeof startTurn>;

/** The headline of the log frame the turn's last write carried. */
function lastHeadline(t: Turn) {
  const write = t.writes().at(-1);
  const frame = write?.messageId ? t.surface.frameOf(write.messageId) : undefined;
  expect(frame?.kind).toBe('log');
  return (frame as Extract<SurfaceFrame, { kind: 'log' }>).headline;
}

const call = (tool: string) => ({
  type: 'turn.log' as const,
  entry: entry(`tool: ${tool} ls`, { status: 'pending', messageRole: 'tool_call' }),
  tool,
});
const result = (tool: string) => ({
  type: 'turn.log' as const,
  entry: entry(tool, { status: 'ok', messageRole: 'tool_result' }),
});

describe('turn machine: the headline', () => {
  it('says which tool is running and for how long, then how long the model has been thinking', async () => {
    const t = startTurn({ input: { title: 'fix the build', startedAt: 0 } });
    await t.advance(2000);
    t.actor.send(call('Bash'));
    await settle();
    expect(lastHeadline(t)).toEqual({
      state: 'running',
      title: 'fix the build',
      elapsedMs: 2000,
      now: 'running Bash (0s)',
    });
    await t.advance(12_000);
    t.actor.send({ type: 'turn.log', entry: entry('note: still going', { messageRole: 'note' }) });
    await t.advance(1000);
    expect(lastHeadline(t)).toMatchObject({ state: 'running', elapsedMs: 15_000, now: 'running Bash (13s)' });
    t.actor.send(result('Bash'));
    await t.advance(4000);
    t.actor.send({ type: 'turn.log', entry: entry('note: thinking', { messageRole: 'note' }) });
    await t.advance(1000);
    expect(lastHeadline(t)).toMatchObject({ now: 'thinking (5s since last tool)', elapsedMs: 20_000 });
  });

  it.each([
    ['ok', 'done'],
    ['error', 'failed'],
    ['stopped', 'stopped'],
  ] as const)(
    'the terminal frame of a turn ending %s shows %s, with the total time and no `now`',
    async (outcome, state) => {
      const t = startTurn({ input: { startedAt: 0 } });
      t.actor.send(call('Read'));
      await settle();
      await t.advance(65_000);
      t.actor.send({ type: 'turn.end', outcome });
      await settle();
      expect(t.writes()).toHaveLength(2);
      expect(lastHeadline(t)).toEqual({ state, title: 'Agent activity', elapsedMs: 65_000 });
      expect(t.writes().at(-1)?.text?.split('\n')[0]).toBe(
        `${{ done: '✅', failed: '❌', stopped: '⏹' }[state]} Agent activity · 1m 05s`,
      );
    },
  );

  it('never edits only because the clock moved', async () => {
    const t = startTurn();
    t.actor.send(call('Bash'));
    await settle();
    t.actor.send({ type: 'turn.flush' });
    await t.advance(30_000);
    expect(t.writes()).toHaveLength(1);
    expect(t.state()).toEqual({ opened: 'live' });
  });
});
