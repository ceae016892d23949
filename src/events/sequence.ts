import { z } from 'zod';
import type { RunEvent, RunEventType } from './schema.js';

/**
 * Per-turn sequencing (docs/events.md): every accepted event of a turn gets
 * `seq` 1, 2, 3… in order of receipt, and an `at` when the host sent none.
 * After a turn's `turn_ended`, further events for it are refused.
 *
 * Events outside a turn (`inbound`, and the events a subagent emitted without
 * a `turnId`) belong to no turn's stream: they get `at` but no `seq` (a `seq`
 * the host sent is removed, since hosts do not choose it).
 *
 * Retries (`eventId`): an event whose `(turnId, eventId)` was already
 * accepted — `(space, eventId)` outside a turn — is a duplicate: it gets no
 * new `seq` and is answered `{ok: true, duplicate: true}` with the first
 * copy's `seq` and `at`, for the caller not to apply it again. Events without
 * an `eventId` are never duplicates. After a restart, `resumeTurn` and
 * `resumeSpace` rebuild the ids from the run record.
 *
 * Memory: open turns are kept until their `turn_ended` (or `endTurn`, for a
 * turn the runtime gives up on), with the ids of their last
 * `maxEventIdsPerTurn` events. Ended turns are remembered so late events can
 * be refused, but only the most recent `maxEndedTurns` (default 10,000); an
 * event for a turn ended longer ago than that starts a fresh sequence. An
 * ended turn keeps its `turn_ended`'s id while remembered, and the ids of its
 * other events while the ended turns' ids number at most `maxEndedEventIds`
 * (the most recently ended first): long enough for a client's retries, after
 * which a retry is refused as a late event. Ids of events outside a turn: the
 * last `maxSpaceEventIds` of all spaces.
 *
 * Ids resumed from run records (`resumeSpace`, and the `inbound` events a
 * turn's record holds, in `resumeTurn`) are kept apart from the ids accepted
 * by this process, so reading a busy space's record never evicts an id this
 * process accepted: of each record only the ids of its newest
 * `maxResumedEventIdsPerSpace` events with one (default 1,000), and of all records
 * together at most `maxSpaceEventIds`, the earliest resumed forgotten first.
 * A retry comes soon after its first copy, so the newest ids are the ones that
 * matter; memory stays bounded at twice `maxSpaceEventIds` ids in all.
 */
export type TurnOutcome = Extract<RunEvent, { type: 'turn_ended' }>['outcome'];

export type StampResult =
  /** `duplicate`: the event is a retry of an accepted one (same seq and at); do not apply it again. */
  { ok: true; event: RunEvent; duplicate?: true } | { ok: false; error: string };

export interface TurnSequencerOptions {
  /** Epoch ms for events without `at`. Default `Date.now`. */
  now?: () => number;
  /** How many ended turns to remember. Default 10,000. */
  maxEndedTurns?: number;
  /** Event ids kept per open turn (the most recent). Default 10,000. */
  maxEventIdsPerTurn?: number;
  /** Event ids of ended turns kept, all turns together (most recently ended turns first). Default 20,000. */
  maxEndedEventIds?: number;
  /**
   * Event ids of events outside a turn kept, all spaces together. Default 10,000. As many again may be
   * kept of the ids resumed from run records.
   */
  maxSpaceEventIds?: number;
  /** Of a space's run record, the ids of the newest this many events with one are resumed. Default 1,000. */
  maxResumedEventIdsPerSpace?: number;
}

export const DEFAULT_MAX_ENDED_TURNS = 10_000;
export const DEFAULT_MAX_EVENT_IDS_PER_TURN = 10_000;
export const DEFAULT_MAX_ENDED_EVENT_IDS = 20_000;
export const DEFAULT_MAX_SPACE_EVENT_IDS = 10_000;
export const DEFAULT_MAX_RESUMED_EVENT_IDS_PER_SPACE = 1_000;

const snapshotSchema = z.object({
  version: z.literal(1),
  /** `[turnId, last seq]`, for turns still open. */
  open: z.array(z.tuple([z.string().min(1), z.number().int().nonnegative()])),
  /** `[turnId, outcome]`, oldest first. */
  ended: z.array(z.tuple([z.string().min(1), z.enum(['ok', 'error', 'stopped'])])),
});

/** The sequencer's state as plain JSON, for persisting across restarts. */
export type TurnSequencerSnapshot = z.infer<typeof snapshotSchema>;

/** What is kept of an accepted event that had an `eventId`. */
interface Accepted {
  type: RunEventType;
  at: number;
  seq?: number;
}

interface EndedTurn {
  outcome: TurnOutcome;
  /** The `turn_ended` event's id and what it was given, when it had one. */
  end?: { eventId: string } & Accepted;
}

/** Ids by eventId, in order of acceptance. */
type Ids = Map<string, Accepted>;

/** How far a host's `at` may be from the ingest's clock (either way). */
export const MAX_AT_SKEW_MS = 86_400_000;

export class TurnSequencer {
  private readonly now: () => number;
  private readonly maxEndedTurns: number;
  private readonly maxIdsPerTurn: number;
  private readonly maxEndedIds: number;
  private readonly maxSpaceIds: number;
  private readonly maxResumedPerSpace: number;
  private readonly lastSeq = new Map<string, number>();
  /** Insertion order is end order, so the oldest ended turn is the first key. */
  private readonly ended = new Map<string, EndedTurn>();
  /** Ids accepted by open turns (only turns that had an event with an id). */
  private readonly liveIds = new Map<string, Ids>();
  /** Ids accepted by recently ended turns, oldest end first; `endedIdCount` in all. */
  private readonly endedIds = new Map<string, Ids>();
  private endedIdCount = 0;
  /** `space \n eventId` of events outside a turn accepted by this process, oldest first. */
  private readonly spaceIds: Ids = new Map();
  /** `space \n eventId` of events outside a turn taken from run records, earliest resumed first. */
  private readonly resumedSpaceIds: Ids = new Map();
  /** Spaces whose ids were resumed from the run record (or that needed none). */
  private readonly resumedSpaces = new Set<string>();

  constructor(options: TurnSequencerOptions = {}) {
    this.maxEndedTurns = positive('maxEndedTurns', options.maxEndedTurns ?? DEFAULT_MAX_ENDED_TURNS);
    this.maxIdsPerTurn = positive(
      'maxEventIdsPerTurn',
      options.maxEventIdsPerTurn ?? DEFAULT_MAX_EVENT_IDS_PER_TURN,
    );
    this.maxEndedIds = nonNegative(
      'maxEndedEventIds',
      options.maxEndedEventIds ?? DEFAULT_MAX_ENDED_EVENT_IDS,
    );
    this.maxSpaceIds = positive('maxSpaceEventIds', options.maxSpaceEventIds ?? DEFAULT_MAX_SPACE_EVENT_IDS);
    this.maxResumedPerSpace = positive(
      'maxResumedEventIdsPerSpace',
      options.maxResumedEventIdsPerSpace ?? DEFAULT_MAX_RESUMED_EVENT_IDS_PER_SPACE,
    );
    this.now = options.now ?? Date.now;
  }

  /**
   * Stamps `seq` (per turn) and `at` (when absent) on a copy of `event`,
   * answers a retry of an accepted event as a duplicate, or refuses it.
   */
  stamp(event: RunEvent): StampResult {
    if (event.at !== undefined) {
      const now = this.now();
      // A time no Date can hold (9e15) or one far off would break every formatter downstream: refused here.
      if (!Number.isSafeInteger(event.at) || Math.abs(event.at - now) > MAX_AT_SKEW_MS) {
        return {
          ok: false,
          error: `at: ${event.at} is out of range: epoch ms within ±1 day of now (${now}), or leave it out to stamp the time of receipt`,
        };
      }
    }
    const turnId = event.type === 'inbound' ? undefined : event.turnId;
    const { eventId } = event;
    if (turnId === undefined) {
      const { seq: _hostSeq, ...rest } = event;
      const key = eventId === undefined ? undefined : `${event.space}\n${eventId}`;
      const first = key === undefined ? undefined : (this.spaceIds.get(key) ?? this.resumedSpaceIds.get(key));
      if (first !== undefined) return this.duplicate(rest as RunEvent, first, `space ${event.space}`);
      const at = event.at ?? this.now();
      if (key !== undefined) remember(this.spaceIds, key, { type: event.type, at }, this.maxSpaceIds);
      return { ok: true, event: { ...rest, at } as RunEvent };
    }
    const ended = this.ended.get(turnId);
    if (ended !== undefined) {
      const first =
        eventId === undefined
          ? undefined
          : ended.end?.eventId === eventId
            ? ended.end
            : this.endedIds.get(turnId)?.get(eventId);
      if (first !== undefined) return this.duplicate(event, first, `turn ${turnId}`);
      return {
        ok: false,
        error: `turn ${turnId} has ended (outcome ${ended.outcome}); event ${event.type} refused`,
      };
    }
    if (eventId !== undefined) {
      const first = this.liveIds.get(turnId)?.get(eventId);
      if (first !== undefined) return this.duplicate(event, first, `turn ${turnId}`);
    }
    const at = event.at ?? this.now();
    const seq = (this.lastSeq.get(turnId) ?? 0) + 1;
    if (eventId !== undefined) this.rememberLive(turnId, eventId, { type: event.type, at, seq });
    if (event.type === 'turn_ended') {
      this.close(turnId, {
        outcome: event.outcome,
        ...(eventId !== undefined ? { end: { eventId, type: event.type, at, seq } } : {}),
      });
    } else this.lastSeq.set(turnId, seq);
    return { ok: true, event: { ...event, at, seq } };
  }

  /**
   * Closes a turn without a `turn_ended` event (the runtime timed it out):
   * later events for it are refused and its counter is released.
   */
  endTurn(turnId: string, outcome: TurnOutcome): void {
    this.close(turnId, { outcome });
  }

  /** The last `seq` given to an open turn; undefined for an unknown or ended turn. */
  lastSeqOf(turnId: string): number | undefined {
    return this.lastSeq.get(turnId);
  }

  /** How an ended turn ended, while it is remembered. */
  outcomeOf(turnId: string): TurnOutcome | undefined {
    return this.ended.get(turnId)?.outcome;
  }

  /** Whether the turn is open or a remembered ended one (else its run record may say more: `resumeTurn`). */
  knowsTurn(turnId: string): boolean {
    return this.lastSeq.has(turnId) || this.ended.has(turnId);
  }

  /**
   * Takes up a turn from its run record (the accepted events, as the store
   * keeps them): the sequence continues after the highest `seq`, the events'
   * ids are known, and a record holding `turn_ended` leaves the turn ended.
   * Merges with what the turn already got in this process. An empty record
   * opens the turn at seq 0. An `inbound` the record holds (one sent with a
   * `turnId`) is the space's, not the turn's: its id is resumed with its space,
   * where an `inbound` is deduplicated.
   */
  resumeTurn(turnId: string, events: readonly RunEvent[]): void {
    let last = this.lastSeq.get(turnId) ?? 0;
    let end: EndedTurn | undefined;
    const ids: Ids = new Map();
    for (const event of events) {
      if (event.type === 'inbound') {
        this.resumeSpaceIds(event.space, [event]);
        continue;
      }
      if (event.seq !== undefined) last = Math.max(last, event.seq);
      const accepted: Accepted = {
        type: event.type,
        at: event.at ?? 0,
        ...(event.seq !== undefined ? { seq: event.seq } : {}),
      };
      if (event.eventId !== undefined) ids.set(event.eventId, accepted);
      if (event.type === 'turn_ended') {
        end = {
          outcome: event.outcome,
          ...(event.eventId !== undefined ? { end: { eventId: event.eventId, ...accepted } } : {}),
        };
      }
    }
    const ended = this.ended.get(turnId);
    if (ended !== undefined) {
      if (ended.end === undefined && end?.end !== undefined) ended.end = end.end;
      this.addEndedIds(turnId, ids);
      return;
    }
    for (const [eventId, accepted] of ids) this.rememberLive(turnId, eventId, accepted);
    if (end !== undefined) this.close(turnId, end);
    else this.lastSeq.set(turnId, last);
  }

  /** Whether the ids of events outside a turn in this space were resumed (or are being collected). */
  knowsSpace(space: string): boolean {
    return this.resumedSpaces.has(space);
  }

  /**
   * Takes up the ids of a space's events outside a turn from its run record
   * (oldest first, as the store keeps it): those of its newest
   * `maxResumedEventIdsPerSpace` events that have one, kept apart from (never evicting) the
   * ids accepted by this process.
   */
  resumeSpace(space: string, events: readonly RunEvent[]): void {
    this.resumedSpaces.add(space);
    if (this.resumedSpaces.size > this.maxSpaceIds) {
      this.resumedSpaces.delete(this.resumedSpaces.values().next().value as string);
    }
    this.resumeSpaceIds(space, events);
  }

  /** Remembers the ids of the newest `maxResumedPerSpace` of `events` (of `space`) as resumed ones. */
  private resumeSpaceIds(space: string, events: readonly RunEvent[]): void {
    const newest: [string, Accepted][] = [];
    for (let i = events.length - 1; i >= 0 && newest.length < this.maxResumedPerSpace; i--) {
      const event = events[i] as RunEvent;
      if (event.eventId === undefined || event.space !== space) continue;
      newest.push([`${space}\n${event.eventId}`, { type: event.type, at: event.at ?? 0 }]);
    }
    for (let i = newest.length - 1; i >= 0; i--) {
      const [key, accepted] = newest[i] as [string, Accepted];
      if (this.spaceIds.has(key) || this.resumedSpaceIds.has(key)) continue;
      remember(this.resumedSpaceIds, key, accepted, this.maxSpaceIds);
    }
  }

  snapshot(): TurnSequencerSnapshot {
    return {
      version: 1,
      open: [...this.lastSeq],
      ended: [...this.ended].map(([turnId, ended]) => [turnId, ended.outcome]),
    };
  }

  /** Replaces the state with a snapshot (e.g. read back from the store). Throws on a malformed one. */
  restore(snapshot: unknown): void {
    const parsed = snapshotSchema.safeParse(snapshot);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const where = first === undefined ? '' : `${first.path.join('.') || '(root)'}: `;
      throw new Error(`invalid turn sequencer snapshot: ${where}${first?.message ?? 'unreadable'}`);
    }
    this.lastSeq.clear();
    this.ended.clear();
    this.liveIds.clear();
    this.endedIds.clear();
    this.endedIdCount = 0;
    for (const [turnId, seq] of parsed.data.open) this.lastSeq.set(turnId, seq);
    for (const [turnId, outcome] of parsed.data.ended) this.endTurn(turnId, outcome);
  }

  /** A retry of `first`: the event as sent again, with the first copy's `at` and `seq`. */
  private duplicate(event: RunEvent, first: Accepted, where: string): StampResult {
    if (event.type !== first.type) {
      const seq = first.seq === undefined ? '' : ` (seq ${first.seq})`;
      return {
        ok: false,
        error: `eventId "${event.eventId}" of ${where} was already accepted for ${article(first.type)} event${seq}; this ${event.type} event is refused: give every event its own eventId`,
      };
    }
    const { seq: _hostSeq, ...rest } = event;
    const stamped = { ...rest, at: first.at, ...(first.seq !== undefined ? { seq: first.seq } : {}) };
    return { ok: true, duplicate: true, event: stamped as RunEvent };
  }

  private rememberLive(turnId: string, eventId: string, accepted: Accepted): void {
    let ids = this.liveIds.get(turnId);
    if (ids === undefined) {
      ids = new Map();
      this.liveIds.set(turnId, ids);
    }
    remember(ids, eventId, accepted, this.maxIdsPerTurn);
  }

  /** The turn is over: its counter is released and its ids move to the ended turns' ids. */
  private close(turnId: string, ended: EndedTurn): void {
    this.lastSeq.delete(turnId);
    const ids = this.liveIds.get(turnId);
    this.liveIds.delete(turnId);
    this.ended.delete(turnId);
    this.ended.set(turnId, ended);
    this.forgetOldestEnded();
    if (ids !== undefined) this.addEndedIds(turnId, ids);
  }

  private addEndedIds(turnId: string, ids: Ids): void {
    if (ids.size === 0) return;
    const kept = this.endedIds.get(turnId);
    if (kept === undefined) {
      this.endedIds.set(turnId, ids);
      this.endedIdCount += ids.size;
    } else {
      for (const [eventId, accepted] of ids) {
        if (kept.has(eventId)) continue;
        kept.set(eventId, accepted);
        this.endedIdCount++;
      }
    }
    this.forgetOldestEndedIds();
  }

  private forgetOldestEnded(): void {
    for (const turnId of this.ended.keys()) {
      if (this.ended.size <= this.maxEndedTurns) return;
      this.ended.delete(turnId);
      this.dropEndedIds(turnId);
    }
  }

  /** Whole turns go, oldest end first; the ids of the newest are trimmed only when it alone is over the bound. */
  private forgetOldestEndedIds(): void {
    for (const [turnId, ids] of this.endedIds) {
      if (this.endedIdCount <= this.maxEndedIds) return;
      if (this.endedIds.size > 1 || this.maxEndedIds === 0) {
        this.dropEndedIds(turnId);
        continue;
      }
      for (const eventId of ids.keys()) {
        if (this.endedIdCount <= this.maxEndedIds) return;
        ids.delete(eventId);
        this.endedIdCount--;
      }
    }
  }

  private dropEndedIds(turnId: string): void {
    const ids = this.endedIds.get(turnId);
    if (ids === undefined) return;
    this.endedIdCount -= ids.size;
    this.endedIds.delete(turnId);
  }
}

/** Sets `key` as the newest entry and forgets the oldest past `max`. */
function remember(ids: Ids, key: string, accepted: Accepted, max: number): void {
  ids.delete(key);
  ids.set(key, accepted);
  if (ids.size > max) ids.delete(ids.keys().next().value as string);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be an integer ≥ 0, got ${String(value)}`);
  }
  return value;
}
