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
