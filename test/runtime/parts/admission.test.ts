/**
 * Issue 21.5: admission (src/runtime/admission.ts) and the run record
 * (src/runtime/run-record.ts) on their own: an event is scrubbed, parsed,
 * checked against the configured surfaces, redacted, sequenced and
 * appended; a refused one is a dead letter naming what is wrong; a retry of
 * an event an earlier process accepted is a duplicate.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { TurnSequencer } from '../../../src/events/sequence.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';
import { createAdmission } from '../../../src/runtime/admission.js';
import { createDurability } from '../../../src/runtime/durability.js';
import { createRunRecord } from '../../../src/runtime/run-record.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { createMemorySurface } from '../../../src/testing/memory-surface.js';

const SPACE = 'gchat:spaces/AAAA';

function admission(store: TurnlogStore = createMemoryStore()) {
  const clock = new SimulatedClock();
  const errors: string[] = [];
  const durability = createDurability({ warn: () => {}, error: (m) => errors.push(m) });
  const sequencer = new TurnSequencer({ now: () => clock.now() });
  const runRecord = createRunRecord({ store, clock, sequencer, durability });
  const admit = createAdmission({
    registry: builtinPlatforms,
    surfaces: { gchat: createMemorySurface({ platform: 'gchat' }) },
    sequencer,
    runRecord,
  });
  return { admit, store, durability, errors };
}

describe('admission', () => {
  it('accepts, sequences and records an event; a retry with the same eventId is a duplicate, not recorded again', async () => {
    const a = admission();
    const first = a.admit({ type: 'turn_started', space: SPACE, turnId: 'T1', eventId: 'e1' });
    expect(first.result).toMatchObject({ ok: true, event: { seq: 1 } });
    expect(first.accepted?.seq).toBe(1);
    const again = a.admit({ type: 'turn_started', space: SPACE, turnId: 'T1', eventId: 'e1' });
    expect(again).toEqual({ result: { ok: true, duplicate: true, event: first.accepted } });
    expect(await a.store.events('T1')).toHaveLength(1);
  });

  it('refuses bad input with a reason naming what is wrong, and keeps it as a dead letter', async () => {
    const a = admission();
    const bad = a.admit({ type: 'tool_call', space: SPACE });
    expect(bad.accepted).toBeUndefined();
    expect(bad.result.ok).toBe(false);
    const noSurface = a.admit({ type: 'note', space: 'slack:C0123ABCD', text: 'hi' });
    expect(noSurface.result).toEqual({
      ok: false,
      error: 'no slack surface is configured for space slack:C0123ABCD',
    });
    const letters = await a.store.deadLetters();
    expect(letters.map((l) => l.reason)).toEqual([
      bad.result.ok ? '' : bad.result.error,
      'no slack surface is configured for space slack:C0123ABCD',
    ]);
    expect(letters.every((l) => l.source === 'ingest')).toBe(true);
  });

  it('redacts a secret before it is recorded', async () => {
    const a = admission();
    const secret = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const { accepted } = a.admit({ type: 'note', space: SPACE, turnId: 'T1', text: `token ${secret}` });
    expect(JSON.stringify(accepted)).not.toContain(secret);
    expect(JSON.stringify(await a.store.events('T1'))).not.toContain(secret);
  });
});

describe('run record', () => {
  it('takes up the eventIds an earlier process accepted: their retry is a duplicate', () => {
    const store = createMemoryStore();
    const before = admission(store);
    expect(
      before.admit({ type: 'note', space: SPACE, turnId: 'T1', text: 'a', eventId: 'e1' }).accepted,
    ).toBeDefined();
    expect(before.admit({ type: 'note', space: SPACE, text: 'b', eventId: 's1' }).accepted).toBeDefined();
    // A new process on the same store.
    const after = admission(store);
    expect(
      after.admit({ type: 'note', space: SPACE, turnId: 'T1', text: 'a', eventId: 'e1' }).result,
    ).toMatchObject({
      ok: true,
      duplicate: true,
    });
    expect(after.admit({ type: 'note', space: SPACE, text: 'b', eventId: 's1' }).result).toMatchObject({
      duplicate: true,
    });
  });

  it('a store that fails to append is reported once by takeFailure, and the event is accepted all the same', async () => {
    const store = createMemoryStore();
    store.appendEvent = () => Promise.reject(new Error('disk full'));
    const a = admission(store);
    expect(a.admit({ type: 'note', space: SPACE, turnId: 'T1', text: 'a' }).accepted).toBeDefined();
    await Promise.resolve();
    await Promise.resolve();
    expect(a.durability.takeFailure()).toBe('store: appendEvent failed: disk full');
    expect(a.durability.takeFailure()).toBeUndefined();
    expect(a.errors).toEqual(['store: appendEvent failed']);
  });
});
