// Issue 22 (smaller item): a password a person types as prose (`my password is …`, `pw: …`) is hidden in
// people's messages and run events, so the docs' "a pasted secret is never stored" holds; ordinary text
// about passwords stays readable (docs/events.md, "Redaction").
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/events/redact.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

/** Prose with a password in it, and the password. */
const HIDDEN: [text: string, secret: string][] = [
  ['my password is hunter2-Zebra!9', 'hunter2-Zebra!9'],
  ['My password is Summer2024, can you log in?', 'Summer2024'],
  ['the new password is "Tr0ub4dor&3" from now on', 'Tr0ub4dor&3'],
  ['pw: Qx7vLm2p', 'Qx7vLm2p'],
  ['user admin pwd: s3cr3t-value', 's3cr3t-value'],
  ['passcode: 48213377', '48213377'],
  ['the wifi passphrase is correcthorsebatterystaple', 'correcthorsebatterystaple'],
  ['password was p@ssw0rd.', 'p@ssw0rd'],
  ['PW is 9f8e7d6c5b', '9f8e7d6c5b'],
  ['login with root / password is: Xy9_kk2!', 'Xy9_kk2!'],
];

/** Ordinary text about passwords: kept as it is. */
const KEPT = [
  'the password is wrong',
  'The form says password: required field',
  'the password is incorrect, try again',
  'your password was reset.',
  'my password is the same as before',
  'pw: see the vault',
  'a password is required',
  'the password is Expired',
  'the passcode is short',
  'password reset email sent to the user',
  'after cd, pwd: /home/me/src',
];

describe('prose passwords', () => {
  it('hides a password typed as prose, keeping the words around it', () => {
    for (const [text, secret] of HIDDEN) {
      const out = redactSecrets(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toContain('[REDACTED]');
      expect(out.split('[REDACTED]')[0], text).toBe(text.split(secret)[0]?.replace(/"$/, '"'));
    }
  });

  it('keeps ordinary sentences about passwords readable', () => {
    for (const text of KEPT) expect(redactSecrets(text), text).toBe(text);
  });

  it('is idempotent', () => {
    for (const [text] of HIDDEN) expect(redactSecrets(redactSecrets(text))).toBe(redactSecrets(text));
  });

  it('keeps none at rest: a person’s message (intake) and run events, in the SQLite files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-prose-pw-'));
    try {
      const store = createSqliteStore({ path: join(dir, 'turnlog.db') });
      const h = await startRuntime({ store });
      for (const [i, [text]] of HIDDEN.entries()) {
        const posted = h.surface.inbound({ space: SPACE, text });
        const result = await h.runtime.receive({
          kind: 'message',
          space: SPACE,
          messageId: posted.messageId,
          threadId: posted.threadId,
          text,
          dm: false,
          user: { id: 'users/1', name: 'Alice' },
          at: h.clock.now(),
          dedupeKey: posted.messageId,
        });
        expect(result.status).toBe('accepted');
        h.send({ type: 'note', turnId: `T${i}`, text });
        h.send({ type: 'input', turnId: `T${i}`, text });
      }
      await h.runtime.sync();
      const actions = JSON.stringify((await h.runtime.actions()).actions);
      await h.runtime.stop();
      store.close();
      const bytes = Buffer.concat(readdirSync(dir).map((file) => readFileSync(join(dir, file)))).toString(
        'utf8',
      );
      expect(actions).toContain('my password is [REDACTED]');
      for (const [, secret] of HIDDEN) {
        expect(actions, secret).not.toContain(secret);
        expect(bytes.includes(secret), secret).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
