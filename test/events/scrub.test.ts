/**
 * `scrubInput` remembers short strings it found clean (keys, ids, types) so
 * they are not scanned again; a string with a secret is redacted every time
 * it comes, however often, in a key or a value.
 */
import { describe, expect, it } from 'vitest';
import { KeyStreams, redactRawText, scrubInput } from '../../src/events/scrub.js';

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

/**
 * issue 9 item 5 · a private key streamed across events: its BEGIN line in one
 * chunk of a tool's output, its body in the next, its END in a third. The
 * chunks of one stream (space, turn, call or subagent, field) are read as one
 * text; other streams and what follows the key are left alone.
 */
describe('scrubInput on a private key streamed across events', () => {
  // Lines of 48: not the width of a PEM or OpenSSH body, so only the stream can tell.
  const BODY = [
    'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0t',
    'RAh6jyPpSkSqePz2ZnwQ6sbqDn7CkVUvN5JwGxQhmQvY8Smd',
    'Ck2n9Dl8EvRmX1Bg0x7Y4bsQzMQp9JvL3sA2tKgFh6WcUoNi',
    'ZpDoA5m8sVrqT3xE0b4Hc7Lw==',
  ] as const;
  const chunk = (callId: string, output: string, extra: Record<string, unknown> = {}) => ({
    type: 'tool_result',
    space: 'spaces/A',
    turnId: 'T1',
    callId,
    tool: 'Bash',
    ok: true,
    output,
    ...extra,
  });
  const outputOf = (result: ReturnType<typeof scrubInput>) =>
    result.ok ? String((result.value as { output?: unknown }).output) : `refused: ${result.error}`;

  it('hides the middle chunks and the tail of a key whose BEGIN came in an earlier event', () => {
    const streams = new KeyStreams();
    const outputs = [
      chunk('c1', `$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${BODY[0]}\n`),
      chunk('c1', `${BODY[1]}\n`),
      chunk('c1', `${BODY[2]}\n${BODY[3]}\n`),
      chunk('c1', '-----END RSA PRIVATE KEY-----\n$ echo done\ndone\n'),
      chunk('c1', 'more output, after the key\n'),
    ].map((event) => outputOf(scrubInput(event, streams)));
    const all = outputs.join('');
    for (const line of BODY) expect(all).not.toContain(line.slice(0, 20));
    expect(outputs[0]).toContain('$ cat id_rsa');
    expect(outputs[3]).toContain('$ echo done\ndone');
    expect(outputs[4]).toBe('more output, after the key\n');
  });

  it('keeps other streams and what follows the key material in a chunk', () => {
    const streams = new KeyStreams();
    scrubInput(chunk('c1', `-----BEGIN PRIVATE KEY-----\n${BODY[0]}\n`), streams);
    // Another call's output, the same call in another turn or space: not part of the key.
    expect(outputOf(scrubInput(chunk('c2', `${BODY[1]}\n`), streams))).toBe(`${BODY[1]}\n`);
    expect(outputOf(scrubInput(chunk('c1', `${BODY[1]}\n`, { turnId: 'T2' }), streams))).toBe(`${BODY[1]}\n`);
    // The same stream: the key lines go, the prose after them stays, and the stream is closed.
    const mixed = outputOf(scrubInput(chunk('c1', `${BODY[1]}\nkey truncated: read error\n`), streams));
    expect(mixed).not.toContain(BODY[1].slice(0, 20));
    expect(mixed).toContain('key truncated: read error');
    expect(outputOf(scrubInput(chunk('c1', `${BODY[2]}\n`), streams))).toBe(`${BODY[2]}\n`);
  });

  it('reads a stream by its subagent or event type when there is no call, and by its field', () => {
    const streams = new KeyStreams();
    const text = (t: string, extra: Record<string, unknown> = {}) => {
      const r = scrubInput(
        { type: 'assistant', space: 'spaces/A', turnId: 'T1', text: t, ...extra },
        streams,
      );
      return r.ok ? String((r.value as { text: unknown }).text) : r.error;
    };
    text('here is the key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n');
    expect(text(`${BODY[0]}\n`, { subagentId: 'S1' })).toBe(`${BODY[0]}\n`);
    expect(text(`${BODY[0]}\n`)).not.toContain(BODY[0].slice(0, 20));
  });

  it('closes the stream at an END line that ends its chunk', () => {
    const streams = new KeyStreams();
    scrubInput(chunk('c1', `-----BEGIN PRIVATE KEY-----\n${BODY[0]}\n`), streams);
    expect(outputOf(scrubInput(chunk('c1', `${BODY[1]}\n-----END PRIVATE KEY-----`), streams))).toBe(
      '[REDACTED:private-key]',
    );
    expect(outputOf(scrubInput(chunk('c1', 'Done\n'), streams))).toBe('Done\n');
    expect(streams.size).toBe(0);
  });

  it('forgets the oldest streams past its bound', () => {
    const streams = new KeyStreams(2);
    for (const c of ['c1', 'c2', 'c3']) scrubInput(chunk(c, '-----BEGIN PRIVATE KEY-----\n'), streams);
    expect(streams.size).toBe(2);
    expect(outputOf(scrubInput(chunk('c1', `${BODY[1]}\n`), streams))).toBe(`${BODY[1]}\n`);
    expect(outputOf(scrubInput(chunk('c3', `${BODY[1]}\n`), streams))).not.toContain(BODY[1].slice(0, 20));
  });
});
