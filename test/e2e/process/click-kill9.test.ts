// spec: issue 13 item 7 — kill -9 between the click and the host's poll: `turnlog serve` (a real process, SQLite)
// takes a person's Approve through its Slack intake (signed block_actions from the emulator) and is killed with
// SIGKILL before the host polls; after the restart on the same database the host still gets the decision, once.
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Action } from '../../../src/actions/types.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { firstLine } from '../../cli/cli.helpers.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { serveConfigFile, startServeProcess } from './serve-process.js';

const CHANNEL = 'C0KILLNINE';
const SPACE = `slack:${CHANNEL}`;
const SECRET = 'kill-nine-signing-secret-0123456';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function actions(url: string): Promise<Action[]> {
  const res = await fetch(`${url}/v1/actions`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { actions: Action[] }).actions;
}

describe('serve: kill -9 between a click and the host’s poll', () => {
  it('delivers the decision after the restart, once', async () => {
    const emulator = await startSlackEmulator({ limits: [] });
    cleanups.push(() => emulator.close());
    const configPath = serveConfigFile(
      'turnlog-click-',
      { slack: { apiUrl: emulator.url, token: 'xoxb-kill-nine', signingSecret: SECRET } },
      cleanups,
    );

    const first = startServeProcess(configPath, cleanups);
    const { ingest: url1 } = JSON.parse(await firstLine(first)) as { ingest: string };
    await emulatorCall(emulator.url, 'app', { url: `${url1}/v1/platforms/slack/events`, secret: SECRET });
    // Alice asks, so her press decides (issue 22.2).
    const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: CHANNEL,
      text: 'clean the build dir',
      user: 'U0ALICE01',
    });
    const message = (await actions(url1)).find((a) => a.type === 'message');
    expect(message).toMatchObject({ messageId: person.messageId });
    const events = [
      { type: 'turn_started', turnId: 'K1', rootRef: message?.id },
      { type: 'policy_request', turnId: 'K1', requestId: 'p1', command: 'rm -rf build' },
    ];
    const posted = await fetch(`${url1}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events.map((e) => JSON.stringify({ space: SPACE, ...e })).join('\n'),
    });
    expect(posted.status).toBe(202);
    const card = await vi.waitFor(
      () => {
        const found = emulator.state.messages(CHANNEL).find((m) => (m.buttons?.length ?? 0) > 0);
        if (!found) throw new Error('no card yet');
        return found;
      },
      { timeout: 30_000, interval: 50 },
    );

    // The person approves; Slack got its 200 (the action is durable), then the process dies before the host polls.
    const clicked = await emulatorCall(emulator.url, 'click', {
      messageId: card.id,
      action: 'approve',
      user: 'U0ALICE01',
    });
    expect(clicked).toMatchObject({ delivered: true, status: 200 });
    first.kill('SIGKILL');
    await once(first, 'exit');

    const second = startServeProcess(configPath, cleanups);
    const { ingest: url2 } = JSON.parse(await firstLine(second)) as { ingest: string };
    const after = await actions(url2);
    expect(after.map((a) => a.type)).toEqual(['message', 'decision']);
    expect(after[1]).toMatchObject({ turnId: 'K1', requestId: 'p1', decision: 'approved', space: SPACE });

    second.kill('SIGTERM');
    const [code] = await once(second, 'exit');
    expect(code).toBe(0);
  }, 120_000);
});
