// spec: issue 11 items 1 and 7 ("Done when") — `turnlog serve` with platforms.slack: auth.test before it
// listens (a refused token is a start-up error naming platforms.slack.token), a turn through the ingest API
// lands as a card in the person's thread and the answer top-level, and /healthz covers Slack.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import { startSlackEmulator } from '../../src/emulators/slack/index.js';
import { SlackStartupError } from '../../src/platforms/slack/app.js';
import { type Serve, startServe } from '../../src/serve/index.js';
import { emulatorCall } from '../emulators/inspection.js';
import { ndjson, postEvents } from './serve.helpers.js';

const CHANNEL = 'C0SERVE001';
const SPACE = `slack:${CHANNEL}`;
const base = { ingest: { port: 0 }, log: { level: 'silent' }, store: { path: ':memory:' } };

let emulator: EmulatorServer | undefined;
let serve: Serve | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
});

const slackConfig = (url: string) => ({
  ...base,
  platforms: { slack: { apiUrl: url, token: 'env:SLACK_BOT' } },
});

describe('serve: Slack', () => {
  it('a token Slack refuses is a start-up error naming platforms.slack.token, before anything listens', async () => {
    emulator = await startSlackEmulator();
    await emulatorCall(emulator.url, 'faults', { rules: [{ path: 'auth.test', status: 401 }] });
    const start = startServe({ config: slackConfig(emulator.url), env: { SLACK_BOT: 'xoxb-revoked' } });
    await expect(start).rejects.toBeInstanceOf(SlackStartupError);
    await expect(
      startServe({ config: slackConfig(emulator.url), env: { SLACK_BOT: 'xoxb-revoked' } }),
    ).rejects.toThrow(/platforms\.slack\.token was refused by Slack \(invalid_auth\)/);
    expect(emulator.state.calls().map((call) => call.path)).toEqual(['/api/auth.test', '/api/auth.test']);
  });

  it('verifies the token, serves a turn into the person’s thread, and /healthz covers Slack', async () => {
    emulator = await startSlackEmulator();
    serve = await startServe({ config: slackConfig(emulator.url), env: { SLACK_BOT: 'xoxb-good' } });
    expect(emulator.state.calls()[0]?.path).toBe('/api/auth.test');
    expect(await (await fetch(`${serve.url}/healthz`)).json()).toMatchObject({ ok: true });

    const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: CHANNEL,
      text: 'fix the build <!channel>',
    });
    const events = [
      {
        type: 'turn_started',
        space: SPACE,
        turnId: 't1',
        root: { messageId: person.messageId },
        title: 'Fix it',
      },
      {
        type: 'tool_call',
        space: SPACE,
        turnId: 't1',
        callId: 'c1',
        tool: 'Bash',
        input: { command: 'npm test' },
      },
      {
        type: 'tool_result',
        space: SPACE,
        turnId: 't1',
        callId: 'c1',
        tool: 'Bash',
        ok: true,
        output: 'ok <!here>',
      },
      { type: 'answer', space: SPACE, turnId: 't1', text: 'Fixed. <@U0123ABCD>' },
      { type: 'turn_ended', space: SPACE, turnId: 't1', outcome: 'ok' },
    ];
    expect((await postEvents(serve.url, ndjson(...events))).status).toBe(202);

    await vi.waitFor(
      () => {
        const messages = emulator!.state.messages(CHANNEL);
        const card = messages.find((m) => m.thread === person.messageId && m.id !== person.messageId);
        expect(card?.text).toContain('Bash(npm test)');
        expect(card?.text).toContain('ok <!here>');
        const answer = messages.find((m) => m.text.includes('Fixed.'));
        expect(answer?.thread).toBeNull();
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(emulator.state.calls().flatMap((call) => call.mentions ?? [])).toEqual([]);

    await emulator.close();
    emulator = undefined;
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, notReady: [{ surface: 'slack' }] });
  });
});
