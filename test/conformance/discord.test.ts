/**
 * Issue 27: every HTTP exchange between turnlog (through @discordjs/rest) and
 * the Discord emulator in realistic turns — a burst, a rollover, a policy
 * card and a press on it (over the gateway, answered over REST), typing,
 * a deleted log, an injected 429 — checked against Discord's
 * OpenAPI spec (discord-api-spec, test/fixtures/specs/manifest.json) and its
 * rate-limit docs. 0 violations outside the cited errata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordEmulator } from '../../src/emulators/discord/index.js';
import { createDiscordIntake } from '../../src/platforms/discord/index.js';
import { START_MS, startDiscordE2E, TOKEN } from '../e2e/discord/harness.js';
import { clockAt } from '../e2e/shared/platform-e2e.js';
import { emulatorCall } from '../emulators/inspection.js';
import { createChecker, type Finding, sortFindings, summarize } from './kit/check.js';
import { checkDiscordExchange, DISCORD_ERRATA } from './kit/discord-check.js';
import { loadDiscordSpec, type OperationTable } from './kit/discord-spec.js';
import { type Exchange, startRecordingProxy, throughProxy } from './kit/recording-proxy.js';

const quietLogger = { info: () => {}, warn: () => {} };

const tool = (send: (e: Record<string, unknown>) => void, turnId: string, n: number) =>
  send({ type: 'tool_call', turnId, callId: `c${n}`, tool: 'Read', input: { path: `src/file-${n}.ts` } });

/** Runs the turns through a recording proxy and returns what went over the wire. */
async function recordScenario(): Promise<Exchange[]> {
  const clock = clockAt(START_MS);
  const emulator = await startDiscordEmulator({ now: () => clock.now(), gateway: { tokens: [TOKEN] } });
  const proxy = await startRecordingProxy(emulator.url);
  const e = await startDiscordE2E({
    reuse: { emulator: throughProxy(emulator, proxy), clock },
    config: { visibility: { threadLog: { maxLogMessageChars: 300, condenseStrategy: 'rollover' } } },
  });
  const send = (event: Record<string, unknown>) => e.send(event);
  // Presses arrive over the gateway; the intake answers them over REST, through the proxy.
  const intake = createDiscordIntake({
    token: TOKEN,
    apiUrl: proxy.url,
    sink: e.runtime,
    logger: quietLogger,
  });
  try {
    await intake.start();
    // A burst, typing while quiet, a rollover, a policy card and the answer.
    const root = await e.userMessage('u1');
    send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    tool(send, 'T1', 0);
    await e.quiet();
    for (let n = 1; n <= 8; n++) tool(send, 'T1', n);
    await e.advance(20_000, 500);
    for (let n = 9; n <= 16; n++) {
      tool(send, 'T1', n);
      await e.advance(1500);
    }
    send({ type: 'policy_request', turnId: 'T1', requestId: 'r1', command: 'rm', args: ['-rf', '/tmp/x'] });
    await e.advance(3000);
    // A press: the intake acknowledges it with a deferred update, and the card is edited to show the decision.
    const card = e.thread(root.messageId).find((m) => (m.buttons ?? []).length > 0);
    const pressed = await emulatorCall<{ delivered: boolean }>(emulator.url, 'click', {
      messageId: card?.id,
      action: 'approve',
      user: '1950000000000000201',
    });
    if (!pressed.delivered) throw new Error('the press was not answered');
    await e.advance(2000);
    send({ type: 'answer', turnId: 'T1', text: 'All green.' });
    send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    // A deleted log, then an injected 429 on an edit.
    await e.userMessage('u2');
    send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    tool(send, 'T2', 0);
    await e.advance(2000);
    const logs = emulator.state.calls().filter((c) => c.op === 'create' && c.status === 200);
    await e.personDeletes(logs.at(-1)!.messageId!);
    tool(send, 'T2', 1);
    await e.advance(3000);
    await e.faults([{ op: 'update', status: 429, times: 1, retryAfterS: 2 }]);
    tool(send, 'T2', 2);
    send({ type: 'turn_ended', turnId: 'T2', outcome: 'ok' });
    await e.advance(10_000);
  } finally {
    await intake.stop();
    await e.stop();
    await proxy.close();
    await emulator.close();
  }
  return proxy.exchanges;
}

let table: OperationTable;
let exchanges: Exchange[];
let findings: Finding[];

beforeAll(async () => {
  table = await loadDiscordSpec();
  exchanges = await recordScenario();
  const checker = createChecker('discord-spec', table.defs);
  findings = exchanges.flatMap((x) => checkDiscordExchange(table, checker, x));
}, 120_000);

afterAll(() => {
  const { errata } = sortFindings(findings, DISCORD_ERRATA);
  if (errata.length)
    console.info('Discord errata (reported, not failed):', summarize(errata.map((e) => e.finding)));
});

describe('Discord: the e2e exchanges against the spec', () => {
  it('records every kind of call the scenario makes: thread, create, edit, typing, a card and its press, a 404 and a 429', () => {
    const ops = new Set(
      exchanges.map((x) => table.find(x.method, x.path.slice('/api/v10'.length))?.operation.operationId),
    );
    for (const op of [
      'create_thread_from_message',
      'create_message',
      'update_message',
      'trigger_typing_indicator',
    ])
      expect(ops).toContain(op);
    expect(exchanges.some((x) => x.status === 429)).toBe(true);
    expect(exchanges.some((x) => x.status === 404)).toBe(true);
    expect(exchanges.some((x) => x.requestBody.includes('"components"'))).toBe(true);
  });

  it('every exchange conforms: 0 violations outside the errata', () => {
    const { violations } = sortFindings(findings, DISCORD_ERRATA);
    expect(summarize(violations)).toEqual([]);
  });
});
