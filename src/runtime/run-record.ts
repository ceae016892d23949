/**
 * The run record: every accepted event appended to the store, every refused
 * one kept as a dead letter, and the event ids an earlier process accepted
 * taken up again, so a retry of one is a duplicate (docs/events.md).
 */
import type { Clock } from '../clock.js';
import type { RunEvent } from '../events/schema.js';
import type { TurnSequencer } from '../events/sequence.js';
import type { PersistedTurn, TurnlogStore } from '../store/store.js';
import type { Durability } from './durability.js';

/**
 * How long after its start a runtime looks up the run record of a turn it
 * does not know when an event with an `eventId` comes for it: a retry of an
 * event accepted before the restart comes within a client's retries (seconds;
 * minutes with long `Retry-After`s). Later, an unknown turn is a new one, and
 * the look-up (which commits the SQLite store's pending writes) is skipped.
 */
export const RECALL_AFTER_START_MS = 10 * 60_000;

export interface RunRecord {
  /** Appends an accepted (stamped) event; a store failure is reported by `sync()`, never thrown. */
  append(event: RunEvent): void;
  /** Keeps a refused input with the reason it was refused. */
  deadLetter(source: string, reason: string, input: unknown): void;
  /** Takes up the event ids of the run record an event may be a retry from (see below). */
  recall(event: RunEvent): void;
  /** A restored live turn's sequence goes on after its record's last `seq`, its ids known. */
  resumeTurn(turn: PersistedTurn): Promise<void>;
}

export interface RunRecordDeps {
  store: TurnlogStore;
  clock: Clock;
  sequencer: TurnSequencer;
  durability: Durability;
}

export function createRunRecord({ store, clock, sequencer, durability }: RunRecordDeps): RunRecord {
  const recallUntil = clock.now() + RECALL_AFTER_START_MS;

  /** A run record (`turnId` or `space:<space>`) from the store; undefined (logged) when the store throws. */
  function read(key: string): RunEvent[] | Promise<RunEvent[]> | undefined {
    try {
      return store.events(key);
    } catch (error) {
      durability.readFailed('events')(error);
      return undefined;
    }
  }

  return {
    append(event) {
      durability.attempt('appendEvent', () => store.appendEvent(event));
    },
    deadLetter(source, reason, input) {
      const payload = typeof input === 'string' ? input : safeJson(input);
      durability.persist('deadLetter', store.deadLetter({ at: clock.now(), source, reason, payload }));
    },
    /**
     * Before the first event with an `eventId` of a turn this runtime does not
     * know (it ended before a restart, or the event came before `ready`; for
     * `RECALL_AFTER_START_MS` after the start), the turn's run record is read;
     * before the first one of a space outside a turn — or the first `inbound`,
     * which is deduplicated per space even with a `turnId` — the space's record
     * (once per space, whenever). An `inbound` with a `turnId` is kept in its
     * turn's record, so it asks for both: its turn's on the terms of the turn's
     * other events (whose record also gives the space the ids of its inbound
     * events, as a live turn's does at start). Only a store that answers at
     * once (SQLite, memory) can be asked here; with another, a space's ids
     * arrive when it answers and a turn's are not looked up.
     */
    recall(event) {
      if (event.eventId === undefined) return;
      const { space, turnId } = event;
      if ((turnId === undefined || event.type === 'inbound') && !sequencer.knowsSpace(space)) {
        const record = read(`space:${space}`);
        if (record !== undefined) {
          sequencer.resumeSpace(space, []);
          if (record instanceof Promise) {
            record.then((events) => sequencer.resumeSpace(space, events), durability.readFailed('events'));
          } else sequencer.resumeSpace(space, record);
        }
      }
      if (turnId !== undefined && !sequencer.knowsTurn(turnId) && clock.now() <= recallUntil) {
        const record = read(turnId);
        if (record instanceof Promise) record.catch(durability.readFailed('events'));
        else if (record !== undefined && record.length > 0) sequencer.resumeTurn(turnId, record);
      }
    },
    async resumeTurn(turn) {
      sequencer.resumeTurn(turn.turnId, await store.events(turn.turnId));
    },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
