/**
 * How `turnlog demo` ends after its summary: on a terminal the page stays up
 * until Enter or Ctrl-C (its printed link must not be dead); without one it
 * ends at once, as tests and CI need; `--keep` serves until Ctrl-C.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demoEnding, untilEnterOrSignal } from '../../src/cli/demo.js';

describe('turnlog demo: the ending', () => {
  it('a terminal keeps the page up until Enter; no terminal ends; --keep keeps serving', () => {
    expect(demoEnding({ keep: false, stdinIsTTY: true })).toBe('until-enter');
    expect(demoEnding({ keep: false, stdinIsTTY: false })).toBe('end');
    expect(demoEnding({ keep: true, stdinIsTTY: true })).toBe('keep');
    expect(demoEnding({ keep: true, stdinIsTTY: false })).toBe('keep');
  });

  it('waits for Enter, then stops reading stdin', async () => {
    const stdin = new PassThrough();
    let resolved = false;
    const waiting = untilEnterOrSignal(stdin, () => {}).then(() => {
      resolved = true;
    });
    stdin.write('not yet');
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    stdin.write('\n');
    await waiting;
    expect(resolved).toBe(true);
    expect(stdin.isPaused()).toBe(true);
  });

  it('Ctrl-C (a signal) ends the wait too, and so does the end of stdin', async () => {
    const stdin = new PassThrough();
    let signal: (() => void) | undefined;
    const waiting = untilEnterOrSignal(stdin, (handler) => {
      signal = handler;
    });
    signal?.();
    await waiting;
    const closed = new PassThrough();
    const atEnd = untilEnterOrSignal(closed, () => {});
    closed.end();
    await atEnd;
  });
});
