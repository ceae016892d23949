/**
 * Issue 24 item 1 (redact each text once): admission scrubs every string of
 * an event before it parses it, and no longer runs `redactRunEvent` over the
 * parsed event. That second pass may only go because it can find nothing
 * left to hide: on events carrying every secret family of the fixtures (in
 * free text, in a tool's input, in argv, under credential-named keys, in a
 * host's extra field), `redactRunEvent` of what scrub-then-parse gives is
 * that same event, and no fixture secret survives the scrub.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../../src/events/parse.js';
import { redactRunEvent } from '../../src/events/redact-event.js';
import { KeyStreams, scrubInput } from '../../src/events/scrub.js';
import { ARGV_FAMILIES, anyText, type PlacedSecret, SECRET_FAMILIES } from './secret-fixtures.js';

const SPACE = 'gchat:spaces/AAAA';
const secret = fc.oneof(...SECRET_FAMILIES, ...ARGV_FAMILIES());

/** Events of the kinds that carry free text, the secret placed in one of their fields. */
const eventWith = (s: PlacedSecret, filler: string): Record<string, unknown>[] => [
  { type: 'note', space: SPACE, turnId: 'T', text: `${filler} ${s.text}` },
  { type: 'answer', space: SPACE, turnId: 'T', text: s.text },
  { type: 'tool_call', space: SPACE, turnId: 'T', callId: 'c', tool: 'Bash', input: { command: s.text } },
  {
    type: 'tool_call',
    space: SPACE,
    turnId: 'T',
    callId: 'c',
    tool: 'Edit',
    input: { path: 'a.env', lines: [filler, s.text], password: filler || 'x', nested: { deep: [s.text] } },
  },
  { type: 'tool_result', space: SPACE, turnId: 'T', callId: 'c', tool: 'Bash', ok: true, output: s.text },
  {
    type: 'policy_request',
    space: SPACE,
    turnId: 'T',
    requestId: 'r',
    title: filler || 'run it',
    command: s.text.split(' ')[0],
    args: s.text.split(' ').slice(1),
  },
  { type: 'note', space: SPACE, turnId: 'T', text: filler || 'x', hostField: s.text },
];

function admittedShape(raw: unknown) {
  const scrubbed = scrubInput(raw, new KeyStreams());
  if (!scrubbed.ok) return undefined;
  const parsed = parseRunEvent(scrubbed.value);
  return parsed.ok ? parsed.event : undefined;
}

describe('redaction at admission runs once (issue 24 item 1)', () => {
  it('redactRunEvent finds nothing left to hide after scrubInput, for every secret family', () => {
    let checked = 0;
    fc.assert(
      fc.property(secret, anyText(60), (s, filler) => {
        for (const raw of eventWith(s, filler)) {
          const event = admittedShape(raw);
          if (event === undefined) continue; // a shape the schema refuses (e.g. a blank title): not admitted
          checked += 1;
          expect(redactRunEvent(event)).toEqual(event);
          expect(JSON.stringify(event)).not.toContain(s.secret);
        }
      }),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(1_000);
  });
});
