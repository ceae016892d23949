// Issue 22.1 and 22.6: the emulator plays a slow write (held until released, or delayed) that lands after
// writes sent later, a lost response (the write applied, the caller answered 502), and a seeded share of
// faulty calls that repeats run after run (docs/emulators.md "POST /_emulator/faults").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createEmulatorServer, type EmulatorServer } from '../../../src/emulators/core/index.js';
import { fakePlatform } from './fake-platform.js';

let emulator: EmulatorServer;

beforeEach(async () => {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  emulator = await createEmulatorServer({
    platform: 'slack',
    handler: fakePlatform,
    defaults: [],
    now: () => clock.now(),
  });
});

afterEach(async () => {
  await emulator.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const edit = (text: string) => call('POST', '/api/edit', { channel: 'C1', id: 'm1', text });

describe('emulator faults: slow, lost and seeded', () => {
  it('a held edit is applied only when released, after an edit sent later: the later one is overwritten', async () => {
    await call('POST', '/api/post', { channel: 'C1', text: 'created' });
    emulator.state.faults([{ op: 'update', hold: true, times: 1 }]);
    const slow = edit('⏳ progress');
    let slowAnswered = false;
    void slow.then(() => {
      slowAnswered = true;
    });
    expect((await edit('✅ final')).status).toBe(200);
    expect(emulator.state.messages('C1')[0]?.text).toBe('✅ final');
    expect(slowAnswered).toBe(false);
    expect(await call('POST', '/_emulator/release', {})).toEqual({ status: 200, body: { released: 1 } });
    expect((await slow).status).toBe(200);
    expect(emulator.state.messages('C1')[0]?.text).toBe('⏳ progress');
    // Recorded in the order the writes were applied.
    const updates = emulator.state.calls().filter((c) => c.op === 'update');
    expect(updates.map((c) => c.text)).toEqual(['✅ final', '⏳ progress']);
  });

  it('a delayed call waits its delayMs (wall clock) before it is handled', async () => {
    emulator.state.faults([{ op: 'create', delayMs: 30, times: 1 }]);
    const slow = call('POST', '/api/post', { channel: 'C1', text: 'late' });
    expect(emulator.state.messages('C1')).toEqual([]);
    expect((await slow).status).toBe(200);
    expect(emulator.state.messages('C1').map((m) => m.text)).toEqual(['late']);
  });

  it('applied: true makes the write and answers the status: the caller cannot tell it landed', async () => {
    emulator.state.faults([{ op: 'create', status: 502, applied: true, times: 1 }]);
    const lost = await call('POST', '/api/post', { channel: 'C1', text: 'made anyway' });
    expect(lost).toEqual({ status: 502, body: { ok: false, kind: 'fault' } });
    expect(emulator.state.messages('C1').map((m) => m.text)).toEqual(['made anyway']);
    expect(emulator.state.calls()).toMatchObject([
      { op: 'create', status: 200, messageId: 'm1', details: { lostResponse: true } },
    ]);
  });

  it('rate and seed: the same share of calls fails in the same places on every run', async () => {
    const run = async () => {
      emulator.state.reset();
      emulator.state.faults([{ op: 'create', status: 500, rate: 0.2, seed: 42 }]);
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++)
        statuses.push((await call('POST', '/api/post', { channel: 'C1', text: `${i}` })).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const failed = first.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(3);
    expect(failed).toBeLessThan(20);
  });

  it('names what is wrong in a rule that would do nothing, or applies with no status', async () => {
    expect(() => emulator.state.faults([{ op: 'update' }])).toThrow(/needs a status, a delayMs or hold/);
    expect(() => emulator.state.faults([{ op: 'update', applied: true, hold: true }])).toThrow(/applied/);
    expect(() => emulator.state.faults([{ op: 'update', status: 500, rate: 0 }])).toThrow(/rate/);
  });
});
