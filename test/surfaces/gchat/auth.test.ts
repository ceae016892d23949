// spec: the gchat surface issue item 1 — production auth is Google's auth with the chat.bot scope from a key
// file (`credentials`) or application default credentials; a given `auth` client is used as is.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth as googleAuth } from 'googleapis/build/src/apis/chat/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { prose } from '../frames.js';
import { rejection, SPACE, type SurfaceHarness, startSurfaceHarness } from './harness.js';

let h: SurfaceHarness;
beforeEach(async () => {
  h = await startSurfaceHarness();
});
afterEach(async () => {
  await h.close();
});

/** A service-account key file as the Cloud console issues it (a fresh key: nothing here is a real credential). */
function serviceAccountKeyFile(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const path = join(mkdtempSync(join(tmpdir(), 'turnlog-gchat-')), 'key.json');
  writeFileSync(
    path,
    JSON.stringify({
      type: 'service_account',
      project_id: 'turnlog-test',
      private_key_id: 'k1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: 'turnlog@turnlog-test.iam.gserviceaccount.com',
      client_id: '1',
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
  );
  return path;
}

describe('gchat surface: auth', () => {
  it('ready() loads the key file given as credentials; a missing one fails naming the cause', async () => {
    expect(await createGchatSurface({ credentials: serviceAccountKeyFile() }).ready?.()).toBe(true);
    const missing = join(tmpdir(), 'no-such-key.json');
    await expect(createGchatSurface({ credentials: missing }).ready?.()).rejects.toThrow(
      /Google credentials did not load: .*no-such-key\.json/,
    );
  });

  it('ready() against an emulator that does not answer fails naming its url', async () => {
    const url = 'http://127.0.0.1:9';
    await expect(createGchatSurface({ apiUrl: url, requestTimeoutMs: 1000 }).ready?.()).rejects.toThrow(
      /the Google Chat emulator at http:\/\/127\.0\.0\.1:9 did not answer/,
    );
  });

  it('a given auth client signs every call: another app cannot edit the message (Chat apps edit only their own)', async () => {
    const bearer = new googleAuth.OAuth2();
    bearer.setCredentials({ access_token: 'app-one-token', expiry_date: Date.now() + 3_600_000 });
    const appOne = createGchatSurface({ apiUrl: h.emulator.url, auth: bearer });
    const posted = await appOne.post({ space: SPACE, frame: prose('mine') });
    await appOne.edit({ space: SPACE, messageId: posted.messageId, frame: prose('still mine') });
    const error = await rejection(
      h.surface.edit({ space: SPACE, messageId: posted.messageId, frame: prose('theirs') }),
    );
    expect(error).toMatchObject({ kind: 'forbidden' });
    expect(error.message).toMatch(/belongs to another Chat app/);
  });
});
