// spec: docs/test-plan.md "How the end-to-end suites run" — emulatorCall fails naming the inspection endpoint,
// the status and what the emulator said; emulatorAnswer gives a refusal's status and body without failing.
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { emulatorAnswer, emulatorCall } from './inspection.js';

let emulator: EmulatorServer | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('the inspection API as tests call it', () => {
  it('emulatorCall returns the answer of a 200', async () => {
    emulator = await startGchatEmulator();
    const posted = await emulatorCall<{ messageId: string; threadId: string }>(emulator.url, 'inbound', {
      space: 'spaces/AAAA',
      text: 'hello',
    });
    expect(posted.messageId).toMatch(/^spaces\/AAAA\/messages\//);
    expect(emulator.state.messages('spaces/AAAA').map((m) => m.id)).toEqual([posted.messageId]);
  });

  it('emulatorCall fails naming the endpoint, the status and what the emulator said', async () => {
    emulator = await startGchatEmulator();
    await expect(emulatorCall(emulator.url, 'inbound', { space: 'AAAA', text: 'x' })).rejects.toThrow(
      /^POST \/_emulator\/inbound answered 400: .*expected a Google Chat space name like spaces\/AAAA/,
    );
  });

  it('emulatorAnswer gives a refusal its status and body', async () => {
    emulator = await startGchatEmulator();
    const refused = await emulatorAnswer(emulator.url, 'inbound', { space: 'AAAA', text: 'x' });
    expect(refused.status).toBe(400);
    expect(String(refused.body.error)).toMatch(/expected a Google Chat space name/);
  });
});
