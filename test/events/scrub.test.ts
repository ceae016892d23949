/**
 * `scrubInput` remembers short strings it found clean (keys, ids, types) so
 * they are not scanned again; a string with a secret is redacted every time
 * it comes, however often, in a key or a value.
 */
import { describe, expect, it } from 'vitest';
import { redactRawText, scrubInput } from '../../src/events/scrub.js';

const TOKEN = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';

describe('scrubInput on repeated strings', () => {
  it('redacts a short secret each time it comes, as a value and as a key', () => {
    for (let n = 0; n < 3; n++) {
      const result = scrubInput({ type: 'note', text: TOKEN, [TOKEN]: 'x' });
      expect(result.ok).toBe(true);
      const text = JSON.stringify(result.ok ? result.value : null);
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('"type":"note"');
    }
  });

  it('a clean string seen before still loses its direction controls', () => {
    expect(scrubInput({ id: 'abc' })).toEqual({ ok: true, value: { id: 'abc' } });
    expect(scrubInput({ id: '\u202Eabc' })).toEqual({ ok: true, value: { id: 'abc' } });
  });
});

/** issue 9 audit · a private key split across the elements of an array (a tool's input as lines). */
describe('scrubInput on a private key split across array elements', () => {
  const BODY = [
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
    'MZR4tB2vH1uJm3A9hKc0Qd7b5FsE2Yq8Wn4p6Lx0Tz1Rv3Nc5Gj7Hk9Ml2Pq4Sa',
  ];

  it('hides the lines between BEGIN and END, however the lines are given', () => {
    for (const input of [
      { lines: ['-----BEGIN PRIVATE KEY-----', ...BODY, '-----END PRIVATE KEY-----', 'after'] },
      { lines: ['key follows', '-----BEGIN RSA PRIVATE KEY-----', ...BODY] },
      { lines: [`pasted: -----BEGIN PRIVATE KEY-----${BODY[0]}`, `${BODY[1]}-----END PRIVATE KEY-----`] },
    ]) {
      const result = scrubInput({ type: 'tool_call', input });
      const text = JSON.stringify(result.ok ? result.value : result);
      for (const line of BODY) expect(text).not.toContain(line.slice(0, 24));
    }
    const kept = scrubInput({
      input: { lines: ['-----BEGIN PRIVATE KEY-----', ...BODY, '-----END PRIVATE KEY-----', 'after'] },
    });
    expect(JSON.stringify(kept.ok ? kept.value : null)).toContain('"after"');
  });
});

/** issue 9 · a cloud access-key id and its secret as consecutive items of an args array. */
describe('scrubInput on a cloud key pair split across array items', () => {
  const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('hides the secret item that follows an access-key id item', () => {
    for (const id of [
      'AKIAIOSFODNN7EXAMPLE',
      'LTAI5tAbCdEfGhIjKlMnOpQr',
      'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE1',
    ]) {
      const result = scrubInput({
        type: 'tool_call',
        input: { args: ['configure', id, SECRET, 'us-east-1'] },
      });
      const text = JSON.stringify(result.ok ? result.value : result);
      expect(text, id).not.toContain(SECRET);
      expect(text).not.toContain(id);
      expect(text).toContain('"us-east-1"');
    }
    const raw = redactRawText(`{"args":["AKIAIOSFODNN7EXAMPLE","${SECRET}"],`);
    expect(raw).not.toContain(SECRET);
  });

  it('keeps an item that follows an id but is not shaped like a secret, and one that follows no id', () => {
    const result = scrubInput({
      args: ['AKIAIOSFODNN7EXAMPLE', '--region', 'x', 'NotASecretButLongEnoughMixed1234567'],
    });
    expect(result).toEqual({
      ok: true,
      value: {
        args: ['[REDACTED:aws-access-key-id]', '--region', 'x', 'NotASecretButLongEnoughMixed1234567'],
      },
    });
  });
});

describe('redactRawText on a private key split across string literals', () => {
  it('hides the literals between BEGIN and END in a line that is not JSON', () => {
    const body = [
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
      'MZR4tB2vH1uJm3A9hKc0Qd7b5FsE2Yq8Wn4p6Lx0Tz1Rv3Nc5Gj7Hk9Ml2Pq4Sa',
    ];
    const line = `{"type":"tool_call","input":{"lines":["-----BEGIN PRIVATE KEY-----","${body[0]}","${body[1]}","-----END PRIVATE KEY-----","after"]`;
    const out = redactRawText(line);
    for (const b of body) expect(out).not.toContain(b.slice(0, 24));
    expect(out).toContain('"after"');
  });
});
