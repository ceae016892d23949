// spec: issue 11 item 1 — the daemon's Bolt App authenticates at start (auth.test): a token Slack refuses is a
// clear start-up error naming platforms.slack.token.
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { SlackStartupError, startSlackApp, verifySlackAuth } from '../../../src/platforms/slack/app.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { rejectionOf } from './harness.js';

let emulator: EmulatorServer | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function faults(rules: unknown[]): Promise<void> {
  await emulatorCall(emulator!.url, 'faults', { rules });
}

describe('verifySlackAuth / startSlackApp', () => {
  it('resolves the bot’s identity from auth.test', async () => {
    emulator = await startSlackEmulator();
    const identity = await verifySlackAuth({ token: 'xoxb-app', apiUrl: emulator.url });
    expect(identity).toMatchObject({ teamId: 'T0EMULATED', botUserId: expect.stringMatching(/^U/) });
  });

  it.each([
    [401, 'invalid_auth'],
    [403, 'access_denied'],
  ])(
    'a token refused with %i (%s) is a start-up error naming platforms.slack.token',
    async (status, code) => {
      emulator = await startSlackEmulator();
      await faults([{ path: 'auth.test', status }]);
      const error = await rejectionOf(verifySlackAuth({ token: 'xoxb-bad', apiUrl: emulator.url }));
      expect(error).toBeInstanceOf(SlackStartupError);
      expect((error as SlackStartupError).message).toContain('platforms.slack.token');
      expect((error as SlackStartupError).code).toBe(code);
    },
  );

  it('an unreachable API is a start-up error naming where it looked', async () => {
    emulator = await startSlackEmulator();
    const url = emulator.url;
    await emulator.close();
    emulator = undefined;
    const error = await rejectionOf(verifySlackAuth({ token: 'xoxb-app', apiUrl: url }));
    expect(error).toBeInstanceOf(SlackStartupError);
    expect((error as Error).message).toContain(url);
  });

  it('starts a Bolt app that knows its bot and writes through the configured API; a bad token never starts', async () => {
    emulator = await startSlackEmulator();
    const app = await startSlackApp({ token: 'xoxb-app', apiUrl: emulator.url });
    await app.client.chat.postMessage({ channel: 'C0BOLTAPP1', text: 'up' });
    expect(emulator.state.messages('C0BOLTAPP1').map((m) => m.text)).toEqual(['up']);
    expect(emulator.state.calls().map((call) => call.path)).toEqual([
      '/api/auth.test',
      '/api/auth.test',
      '/api/chat.postMessage',
    ]);

    await faults([{ path: 'auth.test', status: 401 }]);
    await expect(startSlackApp({ token: 'xoxb-bad', apiUrl: emulator.url })).rejects.toThrow(
      /platforms\.slack\.token/,
    );
  });
});
