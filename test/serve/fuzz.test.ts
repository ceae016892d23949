/**
 * Hostile input through `POST /v1/events` (issue 9 item 11): thousands of
 * generated bad lines — not JSON, wrong shapes, unknown types, bad spaces,
 * times out of range, nesting past the limit, secrets everywhere — on the
 * suite's fixed fast-check seed. Never a 500 nor a crash; every line gets its
 * own error and its own dead letter; no secret is kept.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGV_FAMILIES, anyText, type PlacedSecret, SECRET_FAMILIES } from '../events/secret-fixtures.js';
import { postEvents, SPACE, startTestServe, type TestServe } from './serve.helpers.js';

let serve: TestServe;
beforeAll(async () => {
  serve = await startTestServe({ ingest: { shutdownTimeoutMs: 200, bodyLimitBytes: 8 * 1024 * 1024 } });
});
afterAll(async () => {
  await serve.close();
});

const TYPES = ['note', 'tool_call', 'tool_result', 'answer', 'turn_started', 'turn_ended', 'policy_request'];
const secret = fc.oneof(...SECRET_FAMILIES);
const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), anyText(40));

/** One line that is bad for a known reason, with the secret it carries. */
const badLine: fc.Arbitrary<{ line: string; secret: PlacedSecret }> = fc.oneof(
  // Not JSON at all (a leading '#' keeps it from being blank or valid).
  // One NDJSON line, so a secret written across lines (PEM, YAML) goes in the JSON forms below.
  fc
    .tuple(
      anyText(80),
      secret.filter((s) => !/[\r\n]/.test(s.text)),
    )
    .map(([text, s]) => ({ line: `#${text.replace(/[\r\n]/g, ' ')} ${s.text}`, secret: s })),
  // JSON cut short.
  fc.tuple(fc.constantFrom(...TYPES), secret).map(([type, s]) => ({
    line: JSON.stringify({ type, space: SPACE, turnId: 'F', text: s.text }).slice(0, -1),
    secret: s,
  })),
  // An unknown type.
  fc.tuple(fc.string({ maxLength: 12 }), secret, junk).map(([type, s, extra]) => ({
    line: JSON.stringify({ type: `x-${type}`, space: SPACE, turnId: 'F', output: s.text, extra }),
    secret: s,
  })),
  // A known type on a space no platform has.
  fc.tuple(fc.constantFrom(...TYPES), secret, junk).map(([type, s, extra]) => ({
    line: JSON.stringify({ type, space: `nowhere:${s.text.length}`, turnId: 'F', text: s.text, extra }),
    secret: s,
  })),
  // A wrong value where a field has a type (the secret in the wrong field).
  fc.tuple(secret, junk).map(([s, extra]) => ({
    line: JSON.stringify({
      type: 'tool_result',
      space: SPACE,
      turnId: 'F',
      callId: 'c',
      tool: 'x',
      ok: s.text,
      extra,
    }),
    secret: s,
  })),
  // A time out of range.
  fc
    .tuple(fc.oneof(fc.constant(9e15), fc.integer({ min: 2 * 86_400_000, max: 2 ** 52 })), secret)
    .map(([at, s]) => ({
      line: JSON.stringify({ type: 'note', space: SPACE, turnId: 'F', text: s.text, at: at + 86_400_000 }),
      secret: s,
    })),
  // Issue 22.3: a command given as words, refused for a field's type or cut short.
  fc.tuple(fc.oneof(...ARGV_FAMILIES()), fc.boolean()).map(([s, cut]) => {
    const [command, ...args] = s.argv ?? [];
    const request = { type: 'policy_request', space: SPACE, turnId: 'F', requestId: 'r', command, args };
    return {
      line: cut ? JSON.stringify(request).slice(0, -2) : JSON.stringify({ ...request, requestId: 1 }),
      secret: s,
    };
  }),
  // Nested past the limit.
  fc.tuple(fc.integer({ min: 65, max: 3000 }), secret).map(([depth, s]) => ({
    line: `{"type":"note","space":"${SPACE}","turnId":"F","text":${JSON.stringify(s.text)},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    secret: s,
  })),
);

describe('POST /v1/events: fuzzed bad lines', () => {
  it('answers every body 400 with one error and one dead letter per line, and keeps no secret', async () => {
    let lines = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(badLine, { minLength: 170, maxLength: 250 }), async (bad) => {
        const before = (await serve.store.deadLetters()).length;
        const logBefore = serve.logText().length;
        const { status, json } = await postEvents(serve.url, bad.map((b) => b.line).join('\n'));
        expect(status).toBe(400);
        expect(json.accepted).toBe(0);
        const rejected = json.rejected as { line: number; error: string }[];
        expect(rejected.map((r) => r.line)).toEqual(bad.map((_, i) => i + 1));
        for (const r of rejected) expect(r.error).toMatch(/^line \d+: \S/);
        const letters = await serve.store.deadLetters();
        expect(letters.length - before).toBe(bad.length);
        const kept =
          JSON.stringify(letters.slice(before)) + JSON.stringify(json) + serve.logText().slice(logBefore);
        // What the lines say besides their secrets (generated junk can spell "toString" too).
        const besides = bad
          .map((b) =>
            b.line.split(b.secret.text).join(' ').split(JSON.stringify(b.secret.text).slice(1, -1)).join(' '),
          )
          .join('\n');
        for (const { secret: s } of bad) {
          if (!besides.includes(s.secret)) expect(kept, s.family).not.toContain(s.secret);
        }
        lines += bad.length;
      }),
      // No shrinking: each step of it posts a body again, which would take minutes; the counterexample is printed whole.
      { numRuns: 12, endOnFailure: true },
    );
    expect(lines).toBeGreaterThan(2000);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
