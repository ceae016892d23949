// A fourth platform (`matrix:`) defined only in test code (test/platforms/matrix/): its surface passes the
// ChatSurface contract, and a turn runs end to end through createRuntime given only its descriptor.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import { parseRunEvent } from '../../src/events/parse.js';
import { builtinPlatforms } from '../../src/platforms/all.js';

import { createRuntime, type Runtime } from '../../src/runtime.js';
import { emulatorCall } from '../emulators/inspection.js';
import { describeSurfaceContract, silentServer } from '../surfaces/contract.js';
import { startMatrixEmulator } from './matrix/emulator.js';
import { createMatrixSurface, MATRIX_CAPABILITIES, matrixPlatform } from './matrix/platform.js';

const ROOM = '!abc:example.org';
const SPACE = `matrix:${ROOM}`;

describeSurfaceContract('matrix (a platform defined in test code)', async () => {
  const emulator = await startMatrixEmulator();
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  const app = () =>
    emulator.state.calls().filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete');
  return {
    surface: createMatrixSurface({ homeserver: emulator.url }),
    space: SPACE,
    fault: async (rule) => {
      await emulatorCall(emulator.url, 'faults', { rules: [rule] });
    },
    personPosts: async (text) =>
      emulatorCall<{ messageId: string }>(emulator.url, 'inbound', { space: ROOM, text }),
    personDeletes: async (messageId) => {
      await emulatorCall(emulator.url, 'delete', { messageId });
    },
    calls: async () => app(),
    messages: async () => emulator.state.messages(ROOM),
    unanswered: async () => {
      silent = await silentServer();
      return createMatrixSurface({ homeserver: silent.url, requestTimeoutMs: 50 });
    },
    close: async () => {
      await silent?.close();
      await emulator.close();
    },
  };
});

describe('a fourth platform through the registry', () => {
  let emulator: EmulatorServer | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.stop();
    await emulator?.close();
    runtime = undefined;
    emulator = undefined;
  });

  it('its spaces parse only where its descriptor is registered', () => {
    const event = { type: 'turn_started', space: SPACE, turnId: 'T1' };
    expect(parseRunEvent(event, { platforms: builtinPlatforms })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/platform-prefixed space/),
    });
    const registry = builtinPlatforms.with(matrixPlatform);
    expect(parseRunEvent(event, { platforms: registry })).toMatchObject({
      ok: true,
      event: { space: SPACE },
    });
    expect(parseRunEvent({ ...event, space: 'matrix:no-bang' }, { platforms: registry }).ok).toBe(false);
    expect(registry.checkSpace('gchat:spaces/AAAA')).toBeUndefined();
  });

  it('a runtime without its descriptor refuses its surface and its spaces by name', () => {
    const surface = createMatrixSurface({ homeserver: 'http://127.0.0.1:9' });
    expect(() =>
      createRuntime({ platforms: builtinPlatforms, surfaces: { matrix: surface }, inspect: () => {} }),
    ).toThrow(/surfaces\.matrix names no known platform/);
  });

  it('runs a turn end to end: the log threads under the root and is edited in place; the answer goes top-level', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2025, 0, 1, 12));
    emulator = await startMatrixEmulator({ now: () => clock.now() });
    const warnings: string[] = [];
    runtime = createRuntime({
      surfaces: { matrix: createMatrixSurface({ homeserver: emulator.url }) },
      platforms: [matrixPlatform],
      clock,
      inspect: () => {},
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
    });
    await runtime.ready;
    const send = (event: Record<string, unknown>) => {
      const result = runtime!.ingest({ space: SPACE, ...event });
      if (!result.ok) throw new Error(result.error);
    };
    const root = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: ROOM,
      text: 'fix the build',
    });
    send({ type: 'inbound', messageId: root.messageId, ref: 'u1' });
    send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    for (let i = 0; i < 6; i++) {
      send({ type: 'tool_call', turnId: 'T1', callId: `c${i}`, tool: 'Read', input: { path: `f${i}.ts` } });
      clock.increment(700);
    }
    send({ type: 'tool_call', turnId: 'T1', callId: 'c6', tool: 'Bash', input: { command: 'echo @room' } });
    send({ type: 'answer', turnId: 'T1', text: 'Fixed.' });
    send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    const appCalls = () => emulator!.state.calls().filter((c) => c.op === 'create' || c.op === 'update');
    await vi.waitFor(
      () => {
        clock.increment(200);
        expect(runtime!.turn('T1')?.state).toBe('ended');
        const messages = emulator!.state.messages(ROOM);
        expect(messages.some((m) => m.text === 'Fixed.')).toBe(true);
      },
      { timeout: 10_000, interval: 5 },
    );
    const messages = emulator.state.messages(ROOM);
    const logs = messages.filter((m) => m.thread === root.messageId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.text).toContain('Read(f0.ts)');
    expect(logs[0]!.text).toContain('Bash(echo @\u200Broom)');
    expect(logs[0]!.edits).toBeGreaterThan(0);
    expect(messages.find((m) => m.text === 'Fixed.')?.thread).toBeNull();
    expect(appCalls().every((c) => c.status === 200 && c.mentions.length === 0)).toBe(true);
    // One buzz for the log, one for the answer: edits never notify.
    expect(appCalls().filter((c) => c.notifies)).toHaveLength(2);
    expect(runtime.actor.system.get('budget:matrix')).toBeDefined();
    expect(runtime.turn('T1')?.warnings).toEqual([]);
    expect(MATRIX_CAPABILITIES.maxChars).toBeLessThan(3500);
  });
});
