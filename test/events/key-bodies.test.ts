// spec: issue 9 item 5 (private keys however they are split) and docs/architecture.md item 3:
// the body of a private key with neither its BEGIN nor its END line in the same text (the
// middle chunk of a streamed key, a chunk read after a restart, a key on one line) is hidden;
// certificates, public keys and ordinary base64 are kept.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/events/redact.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key: string) => key.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
const derBase64 = (der: Buffer) => der.toString('base64');

/** The body lines of a PEM private key: 64 characters each, the last one shorter. */
const RSA_BODY = pem(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
const PKCS8_BODY = pem(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
/** An OpenSSH key's body: base64 of `openssh-key-v1\0…`, 70 characters a line. */
const OPENSSH_BODY = (() => {
  const blob = Buffer.concat([Buffer.from('openssh-key-v1\0'), randomBytes(300)]).toString('base64');
  return blob.match(/.{1,70}/g) ?? [];
})();

const hidesAll = (output: string, lines: readonly string[]) => {
  for (const line of lines) if (line.length >= 16) expect(output).not.toContain(line.slice(0, 16));
};

describe('redactSecrets on key bodies cut from their BEGIN and END lines', () => {
  it('hides a run of full-width key lines in the middle of a chunk, keeping the text around it', () => {
    for (const body of [RSA_BODY, PKCS8_BODY, OPENSSH_BODY]) {
      const middle = body.slice(2, 6);
      const output = redactSecrets(`reading...\n${middle.join('\n')}\nstill reading`);
      hidesAll(output, middle);
      expect(output).toMatch(/^reading\.\.\.\n\[REDACTED:[\w-]+\]\nstill reading$/);
    }
  });

  it('hides the lines when they are CRLF or JSON `\\n` escapes (a cut line kept as a dead letter)', () => {
    const middle = RSA_BODY.slice(1, 5);
    hidesAll(redactSecrets(middle.join('\r\n')), middle);
    hidesAll(redactSecrets(`{"output":"${middle.join('\\n')}`), middle);
  });

  it('hides a key given as one line of base64 DER (PKCS#1, PKCS#8, SEC1) or one OpenSSH blob', () => {
    const oneLine = [
      derBase64(rsa.privateKey.export({ type: 'pkcs1', format: 'der' })),
      derBase64(rsa.privateKey.export({ type: 'pkcs8', format: 'der' })),
      derBase64(ec.privateKey.export({ type: 'sec1', format: 'der' })),
      derBase64(ec.privateKey.export({ type: 'pkcs8', format: 'der' })),
      OPENSSH_BODY.join(''),
    ];
    for (const key of oneLine) {
      const output = redactSecrets(`PRIVATE=${'x'} key ${key} end`);
      expect(output).not.toContain(key.slice(0, 40));
      expect(output).toContain(' end');
    }
  });

  it('keeps certificates, public keys and ordinary base64', () => {
    const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const publicDer = derBase64(rsa.publicKey.export({ type: 'spki', format: 'der' }));
    const publicPkcs1 = derBase64(rsa.publicKey.export({ type: 'pkcs1', format: 'der' }));
    // A certificate's block: the body lines are as wide as a key's, under their own BEGIN line.
    const certificate = `-----BEGIN CERTIFICATE-----\n${RSA_BODY.slice(0, 4).join('\n')}\n-----END CERTIFICATE-----`;
    const kept = [
      publicPem,
      `spki ${publicDer} done`,
      `pkcs1 ${publicPkcs1} done`,
      certificate,
      `sha: ${'0123456789abcdef'.repeat(8)}`,
      `one line of base64: ${Buffer.from('hello world, this is plain text that happens to be base64 encoded for transport').toString('base64')}`,
      'a'.repeat(64),
      `${'A'.repeat(64)}\n${'B'.repeat(64)}`,
    ];
    for (const text of kept) expect(redactSecrets(text)).toBe(text);
  });
});
