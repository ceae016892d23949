/**
 * Issue 27: every HTTP exchange between turnlog (through @slack/web-api) and
 * the Slack emulator in realistic turns — a burst, a rollover, assistant
 * status, a policy card and its click, a deleted log,
 * an injected 429 — checked against the Web API as @slack/web-api types it
 * (test/fixtures/specs/manifest.json) and Slack's documented answer shape.
 * 0 violations outside the cited errata.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../src/actions/types.js';
import { startSlackEmulator } from '../../src/emulators/slack/index.js';
import { createSlackSurface } from '../../src/platforms/slack/surface.js';
import { clockAt, startPlatformE2E } from '../e2e/shared/platform-e2e.js';
import { BOT_TOKEN, SPACE, START_MS } from '../e2e/slack/harness.js';
import { type Finding, sortFindings, summarize } from './kit/check.js';
import { type Exchange, startRecordingProxy, throughProxy } from './kit/recording-proxy.js';
import { createSlackChecker, SLACK_ERRATA } from './kit/slack-check.js';
import { loadSlackSpec } from './kit/slack-spec.js';

async function recordScenario(): Promise<Exchange[]> {
  const clock = clockAt(START_MS);
  const emulator = await startSlackEmulator({ now: () => clock.now() });
  const proxy = await startRecordingProxy(emulator.url);
  const e = await startPlatformE2E({
    platform: 'slack',
    name: 'Slack',
    space: SPACE,
    startMs: START_MS,
    clock,
    startEmulator: async () => emulator,
    emulator: throughProxy(emulator, proxy),
    createSurface: (emu) => createSlackSurface({ token: BOT_TOKEN, apiUrl: emu.url, now: () => clock.now() }),
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
      user: { id: 'U0ALICE', name: 'Alice' },
      at: 0,
      dedupeKey: 'k1',
    };
    await e.runtime.receive(click);
    await e.advance(2000);
    e.send({ type: 'answer', turnId: 'T1', text: 'All green.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    await e.userMessage('u2');
    e.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    tool('T2', 0);
    await e.advance(2000);
    const log = e
      .creates()
      .filter((c) => c.status === 200 && c.details?.error === undefined)
      .at(-1)!;
    await e.personDeletes(log.messageId!);
    tool('T2', 1);
    await e.advance(3000);
    await e.faults([{ op: 'update', status: 429, times: 1, retryAfterS: 2 }]);
    tool('T2', 2);
    e.send({ type: 'turn_ended', turnId: 'T2', outcome: 'ok' });
    await e.advance(15_000);
  } finally {
    await e.stop();
    await proxy.close();
    await emulator.close();
  }
  return proxy.exchanges;
}

let exchanges: Exchange[];
let findings: Finding[];

beforeAll(async () => {
  const spec = loadSlackSpec();
  exchanges = await recordScenario();
  const check = createSlackChecker(spec);
  findings = exchanges.flatMap(check);
}, 120_000);

describe('Slack: the e2e exchanges against @slack/web-api', () => {
  it('records posts, edits, assistant status, a card, a refused edit of a deleted log and a 429', () => {
    const methods = new Set(exchanges.map((x) => x.path));
    for (const m of ['chat.postMessage', 'chat.update', 'assistant.threads.setStatus'])
      expect(methods).toContain(`/api/${m}`);
    expect(exchanges.some((x) => x.status === 429)).toBe(true);
    expect(exchanges.some((x) => x.responseBody.includes('"message_not_found"'))).toBe(true);
    expect(exchanges.some((x) => x.requestBody.includes('blocks'))).toBe(true);
  });

  it('every exchange conforms: 0 violations outside the errata', () => {
    const { violations } = sortFindings(findings, SLACK_ERRATA);
    expect(summarize(violations)).toEqual([]);
  });
});
