/**
 * A `POST /v1/events` body reaches the runtime as one batch
 * (`ingestBatch`), and each line's result is reported on that line.
 */
import { describe, expect, it } from 'vitest';
import type { IngestResult } from '../../src/runtime.js';
import { ingestBody } from '../../src/serve/ingest-body.js';

function recorder(refuse: (input: unknown) => string | undefined) {
  const batches: unknown[][] = [];
  const deadLetters: string[] = [];
  return {
    batches,
    deadLetters,
    deps: {
      ingestBatch(inputs: readonly unknown[]): IngestResult[] {
        batches.push([...inputs]);
        return inputs.map((input) => {
          const error = refuse(input);
          return error === undefined
            ? { ok: true, event: { type: 'note', space: 'gchat:spaces/A', text: 'x' } as never }
            : { ok: false, error };
        });
      },
      deadLetter: (reason: string) => void deadLetters.push(reason),
    },
  };
}

describe('ingestBody', () => {
  it('hands every NDJSON line to one ingestBatch and reports refusals by line number', () => {
    const r = recorder((input) => (String(input).includes('bad') ? 'bad line' : undefined));
    const body = ['{"n":1}', '', '{"bad":2}', '{"n":3}\r', '   ', '{"n":4}'].join('\n');
    const outcome = ingestBody(body, 'ndjson', r.deps);
    expect(r.batches).toEqual([['{"n":1}', '{"bad":2}', '{"n":3}', '{"n":4}']]);
    expect(outcome).toEqual({ accepted: 3, rejected: [{ line: 3, error: 'line 3: bad line' }] });
  });

  it('hands a JSON array to one ingestBatch; a string item is refused at its index without reaching it', () => {
    const r = recorder((input) => ((input as { n?: number }).n === 2 ? 'no two' : undefined));
    const outcome = ingestBody('[{"n":0},"text",{"n":2},{"n":3}]', 'json', r.deps);
    expect(r.batches).toEqual([[{ n: 0 }, { n: 2 }, { n: 3 }]]);
    expect(outcome.accepted).toBe(2);
    expect(outcome.rejected).toEqual([
      { line: 1, error: expect.stringMatching(/^index 1: expected a JSON object/) },
      { line: 2, error: 'index 2: no two' },
    ]);
    expect(r.deadLetters).toHaveLength(1);
  });
});
