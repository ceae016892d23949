/**
 * Admission of one event: scrubbed of secrets and direction controls before
 * anything parses, stores or logs it, parsed, checked against the configured
 * surfaces, sequenced (a retry is a duplicate) and appended to the run
 * record. A refused input is kept as a dead letter with its reason.
 *
 * Each text is redacted once, by the scrub: it covers every string of the
 * event (ids and keys included) with the same passes `redactRunEvent` runs
 * over free text, and parsing copies strings without changing them, so a
 * second pass after parsing found nothing (test/events/redact-once.test.ts)
 * (issue 24 item 1).
 */
import { parseRunEvent } from '../events/parse.js';
import type { RunEvent } from '../events/schema.js';
import { KeyStreams, scrubInput } from '../events/scrub.js';
import type { TurnSequencer } from '../events/sequence.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { ChatSurface } from '../surfaces/surface.js';
import type { RunRecord } from './run-record.js';
import type { IngestResult } from './types.js';

/** `accepted` is the event to apply: none for a refused one (a dead letter) or a duplicate. */
export interface Admitted {
  result: IngestResult;
  accepted?: RunEvent;
}

export interface AdmissionDeps {
  registry: PlatformRegistry;
  surfaces: Partial<Record<string, ChatSurface>>;
  sequencer: TurnSequencer;
  runRecord: RunRecord;
}

export function createAdmission({ registry, surfaces, sequencer, runRecord }: AdmissionDeps) {
  /** Private keys streamed across events: a chunk's key stays hidden in the chunks after it. */
  const keyStreams = new KeyStreams();
  const reject = (error: string, input: unknown): Admitted => {
    runRecord.deadLetter('ingest', error, input);
    return { result: { ok: false, error } };
  };

  return function admit(raw: unknown): Admitted {
    const scrubbed = scrubInput(raw, keyStreams);
    if (!scrubbed.ok) return reject(scrubbed.error, scrubbed.payload);
    const input = scrubbed.value;
    const parsed = parseRunEvent(input, { platforms: registry });
    if (!parsed.ok) return reject(parsed.error, input);
    const platform = registry.forSpace(parsed.event.space).id;
    if (!surfaces[platform])
      return reject(`no ${platform} surface is configured for space ${parsed.event.space}`, input);
    const event = parsed.event;
    runRecord.recall(event);
    const stamped = sequencer.stamp(event);
    if (!stamped.ok) return reject(stamped.error, input);
    if (stamped.duplicate) return { result: { ok: true, duplicate: true, event: stamped.event } };
    // Stamped means accepted: a store that fails now (at once or later) is reported by `sync()`, and
    // the event is applied all the same (its retry is a duplicate).
    runRecord.append(stamped.event);
    return { result: { ok: true, event: stamped.event }, accepted: stamped.event };
  };
}

export type Admission = ReturnType<typeof createAdmission>;
