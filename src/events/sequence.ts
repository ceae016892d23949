import { z } from 'zod';
import type { RunEvent } from './schema.js';

/**
 * Per-turn sequencing (CONTRACTS.md §1): every accepted event of a turn gets
 * `seq` 1, 2, 3… in order of receipt, and an `at` when the host sent none.
 * After a turn's `turn_ended`, further events for it are refused.
 *
 * Events outside a turn (`inbound`, and the events a subagent emitted without
 * a `turnId`) belong to no turn's stream: they get `at` but no `seq` (a `seq`
 * the host sent is removed, since hosts do not choose it).
 *
 * Memory: open turns are kept until their `turn_ended` (or `endTurn`, for a
 * turn the runtime gives up on). Ended turns are remembered so late events can
 * be refused, but only the most recent `maxEndedTurns` (default 10,000); an
 * event for a turn ended longer ago than that starts a fresh sequence.
 */
export type TurnOutcome = Extract<RunEvent, { type: 'turn_ended' }>['outcome'];

export type StampResult = { ok: true; event: RunEvent } | { ok: false; error: string };

export interface TurnSequencerOptions {
  /** Epoch ms for events without `at`. Default `Date.now`. */
  now?: () => number;
  /** How many ended turns to remember. Default 10,000. */
  maxEndedTurns?: number;
}

export const DEFAULT_MAX_ENDED_TURNS = 10_000;

const snapshotSchema = z.object({
  version: z.literal(1),
  /** `[turnId, last seq]`, for turns still open. */
  open: z.array(z.tuple([z.string().min(1), z.number().int().nonnegative()])),
  /** `[turnId, outcome]`, oldest first. */
  ended: z.array(z.tuple([z.string().min(1), z.enum(['ok', 'error', 'stopped'])])),
});

/** The sequencer's state as plain JSON, for persisting across restarts. */
export type TurnSequencerSnapshot = z.infer<typeof snapshotSchema>;

export class TurnSequencer {
  private readonly now: () => number;
  private readonly maxEndedTurns: number;
  private readonly lastSeq = new Map<string, number>();
  /** Insertion order is end order, so the oldest ended turn is the first key. */
  private readonly ended = new Map<string, TurnOutcome>();

  constructor(options: TurnSequencerOptions = {}) {
    const max = options.maxEndedTurns ?? DEFAULT_MAX_ENDED_TURNS;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`maxEndedTurns must be a positive integer, got ${String(max)}`);
    }
    this.now = options.now ?? Date.now;
    this.maxEndedTurns = max;
  }

  /** Stamps `seq` (per turn) and `at` (when absent) on a copy of `event`, or refuses it. */
  stamp(event: RunEvent): StampResult {
    const at = event.at ?? this.now();
    const turnId = event.type === 'inbound' ? undefined : event.turnId;
    if (turnId === undefined) {
      const { seq: _hostSeq, ...rest } = event;
      return { ok: true, event: { ...rest, at } as RunEvent };
    }
    const outcome = this.ended.get(turnId);
    if (outcome !== undefined) {
      return {
        ok: false,
        error: `turn ${turnId} has ended (outcome ${outcome}); event ${event.type} refused`,
      };
    }
    const seq = (this.lastSeq.get(turnId) ?? 0) + 1;
    if (event.type === 'turn_ended') this.endTurn(turnId, event.outcome);
    else this.lastSeq.set(turnId, seq);
    return { ok: true, event: { ...event, at, seq } };
  }

  /**
   * Closes a turn without a `turn_ended` event (the runtime timed it out):
   * later events for it are refused and its counter is released.
   */
  endTurn(turnId: string, outcome: TurnOutcome): void {
    this.lastSeq.delete(turnId);
    this.ended.delete(turnId);
    this.ended.set(turnId, outcome);
    this.forgetOldestEnded();
  }

  /** The last `seq` given to an open turn; undefined for an unknown or ended turn. */
  lastSeqOf(turnId: string): number | undefined {
    return this.lastSeq.get(turnId);
  }

  /** How an ended turn ended, while it is remembered. */
  outcomeOf(turnId: string): TurnOutcome | undefined {
    return this.ended.get(turnId);
  }

  snapshot(): TurnSequencerSnapshot {
    return { version: 1, open: [...this.lastSeq], ended: [...this.ended] };
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
    for (const [turnId, seq] of parsed.data.open) this.lastSeq.set(turnId, seq);
    for (const [turnId, outcome] of parsed.data.ended) this.endTurn(turnId, outcome);
  }

  private forgetOldestEnded(): void {
    for (const turnId of this.ended.keys()) {
      if (this.ended.size <= this.maxEndedTurns) return;
      this.ended.delete(turnId);
    }
  }
}
