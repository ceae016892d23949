/**
 * Issue 27: every HTTP exchange between turnlog (through googleapis) and the
 * Google Chat emulator in realistic turns — a burst, a rollover, a policy card
 * and its click, a deleted log, an injected 429 and 503 — checked against the
 * chat/v1 API as googleapis ships it (generated from Google's discovery
 * document; test/fixtures/specs/manifest.json) and Google's error shape.
 * 0 violations outside the cited errata.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../src/actions/types.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { createGchatSurface } from '../../src/platforms/gchat/surface.js';
import { SPACE, START_MS } from '../e2e/gchat/harness.js';
import { clockAt, startPlatformE2E } from '../e2e/shared/platform-e2e.js';
import { createChecker, type Finding, sortFindings, summarize } from './kit/check.js';
import { checkGchatExchange, GCHAT_ERRATA } from './kit/gchat-check.js';
import { type GchatSpec, loadGchatSpec } from './kit/gchat-spec.js';
import { type Exchange, startRecordingProxy, throughProxy } from './kit/recording-proxy.js';

async function recordScenario(): Promise<Exchange[]> {
  const clock = clockAt(START_MS);
  const emulator = await startGchatEmulator({ now: () => clock.now() });
  const proxy = await startRecordingProxy(emulator.url);
  const e = await startPlatformE2E({
    platform: 'gchat',
    name: 'Google Chat',
    space: SPACE,
    startMs: START_MS,
    clock,
    startEmulator: async () => emulator,
    emulator: throughProxy(emulator, proxy),
    createSurface: (emu) => createGchatSurface({ apiUrl: emu.url }),
    config: { visibility: { threadLog: { maxLogMessageChars: 300, condenseStrategy: 'rollover' } } },
  });
  const tool = (turnId: string, n: number) =>
    e.send({ type: 'tool_call', turnId, callId: `c${n}`, tool: 'Read', input: { path: `src/file-${n}.ts` } });
  try {
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    tool('T1', 0);
    await e.quiet();
    for (let n = 1; n <= 8; n++) tool('T1', n);
    await e.advance(3000);
    for (let n = 9; n <= 16; n++) {
      tool('T1', n);
      await e.advance(1500);
    }
    e.send({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'deploy' });
    await e.advance(2000);
    const card = e.messages().find((m) => (m.buttons ?? []).length > 0);
    if (!card) throw new Error('no card posted');
    const click: ClickIntake = {
      kind: 'click',
      space: SPACE,
      messageId: card.id,
      action: 'approve',
      user: { id: 'users/alice', name: 'Alice' },
      at: 0,
      dedupeKey: 'k1',
    };
    await e.runtime.receive(click);
    await e.advance(2000);
    e.send({ type: 'answer', turnId: 'T1', text: 'All green.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    // A deleted log, then an injected 429 on an edit and a 503 on a create.
    await e.userMessage('u2');
    e.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    tool('T2', 0);
    await e.advance(2000);
    const log = e
      .creates()
      .filter((c) => c.status === 200)
      .at(-1)!;
    await e.personDeletes(log.messageId!);
    tool('T2', 1);
    await e.advance(3000);
    await e.faults([{ op: 'update', status: 429, times: 1 }]);
    tool('T2', 2);
    await e.advance(5000);
    await e.faults([{ op: 'create', status: 503, times: 1 }]);
    e.send({ type: 'answer', turnId: 'T2', text: 'Done.' });
    e.send({ type: 'turn_ended', turnId: 'T2', outcome: 'ok' });
    await e.advance(15_000);
  } finally {
    await e.stop();
    await proxy.close();
    await emulator.close();
  }
  return proxy.exchanges;
}

let spec: GchatSpec;
let exchanges: Exchange[];
let findings: Finding[];

beforeAll(async () => {
  spec = loadGchatSpec();
  exchanges = await recordScenario();
  const checker = createChecker('gchat-spec', spec.defs);
  findings = exchanges.flatMap((x) => checkGchatExchange(spec, checker, x));
}, 120_000);

describe('Google Chat: the e2e exchanges against chat/v1', () => {
  it('records creates, edits, a card and its edit, a 404, a 429 and a 503', () => {
    const ids = new Set(exchanges.map((x) => spec.find(x.method, x.path)?.id));
    expect(ids).toContain('spaces.messages.create');
    expect(ids).toContain('spaces.messages.patch');
    for (const status of [404, 429, 503]) expect(exchanges.some((x) => x.status === status)).toBe(true);
    expect(exchanges.some((x) => x.requestBody.includes('"cardsV2"'))).toBe(true);
  });

  it('every exchange conforms: 0 violations outside the errata', () => {
    const { violations } = sortFindings(findings, GCHAT_ERRATA);
    expect(summarize(violations)).toEqual([]);
  });
});
