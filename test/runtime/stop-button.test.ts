/**
 * Stop on the live log (visibility.stopButton): the log carries a Stop button
 * while the turn runs, a click on it tells the turn, whose headline then says
 * `stopping… (asked by <name>)` without the button until `turn_ended`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../src/actions/types.js';
import type { SurfaceFrame } from '../../src/surfaces/frame.js';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
});

const stop = (messageId: string, name = 'Alice', n = 1): ClickIntake => ({
  kind: 'click',
  space: SPACE,
  messageId,
  action: 'stop',
  user: { id: `users/${name}`, name },
  at: 0,
  dedupeKey: `k${n}`,
});

async function liveTurn(stopButton?: boolean) {
  h = await startRuntime({ config: stopButton === undefined ? {} : { visibility: { stopButton } } });
  h.userMessage('u1');
  h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'make' } });
  await h.advance(1500);
  const log = h.runtime.turn('T1')?.logMessages[0]?.messageId;
  if (!log) throw new Error('no log message');
  return log;
}

const logOf = (messageId: string): Extract<SurfaceFrame, { kind: 'log' }> => {
  const frame = h?.surface.frameOf(messageId);
  if (frame?.kind !== 'log') throw new Error(`${messageId} is not a log`);
  return frame;
};

describe('Stop on the live log', () => {
  it('is off by default: the log has no buttons', async () => {
    const log = await liveTurn();
    expect(logOf(log).actions).toBeUndefined();
  });

  it('a live log shows Stop; a click asks the turn to stop, the headline says who asked and the button goes', async () => {
    const log = await liveTurn(true);
    expect(logOf(log).actions).toEqual([{ id: 'stop', label: 'Stop', style: 'danger' }]);
    expect(await h!.runtime.receive(stop(log))).toMatchObject({
      status: 'accepted',
      text: '⏹ stop asked by Alice',
      action: { type: 'stop', user: { name: 'Alice' } },
    });
    await h!.advance(1500);
    expect(logOf(log).actions).toEqual([]);
    expect(logOf(log).headline?.now).toBe('stopping… (asked by Alice)');
    // Entries keep arriving until the host ends the turn: the headline keeps saying it, no button comes back.
    h!.send({ type: 'tool_result', turnId: 'T1', callId: 'c1', tool: 'Bash', ok: true });
    await h!.advance(1500);
    expect(logOf(log)).toMatchObject({ actions: [], headline: { now: 'stopping… (asked by Alice)' } });
    expect(await h!.runtime.receive(stop(log, 'Bob', 2))).toEqual({
      status: 'already-decided',
      text: 'Alice already asked this turn to stop.',
    });
    h!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'stopped' });
    await h!.advance(1500);
    expect(logOf(log).headline).toMatchObject({ state: 'stopped' });
    expect(logOf(log).headline?.now).toBeUndefined();
    expect(logOf(log).actions).toEqual([]);
  });

  it('the turn ends without a click: the terminal frame drops the button', async () => {
    const log = await liveTurn(true);
    h!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h!.advance(1500);
    expect(logOf(log)).toMatchObject({ actions: [], headline: { state: 'done' } });
    // Issue 22.5: a late press is told the turn has ended, and makes no action.
    expect(await h!.runtime.receive(stop(log))).toEqual({
      status: 'refused',
      text: 'This turn has ended (T1): this button no longer does anything.',
    });
  });
});
