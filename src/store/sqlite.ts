/**
 * The SQLite store (better-sqlite3): the default for `turnlog serve`, so a
 * restarted process resumes editing the same log messages. WAL journal with
 * `synchronous=NORMAL` (a commit survives a process crash; the last commits
 * may be lost on power loss), a busy timeout for a second connection, and a
 * versioned schema (see migrations.ts). JSON values are stored as TEXT.
 *
 * The hot writes, turn snapshots, stray logs, pending answer parts and the run record, are committed once per
 * event-loop tick by default (write-behind.ts; `bench/store.bench.ts`
 * measures why). Every other write, and every read, first commits what is
 * pending, so commits keep the order of the calls: the file always holds a
 * prefix of them, and a crash loses at most the current tick's writes. Bounds
 * are those of the memory store, oldest rows pruned first. One process owns a
 * database file.
 *
 * The file and its statements are in sqlite-schema.ts, the rows and their
 * JSON in sqlite-rows.ts.
 */
import type { Action, NewAction } from '../actions/types.js';
import type { RunEvent } from '../events/schema.js';
import type { PostedMessage } from '../surfaces/surface.js';
import { createSqliteOpenCards } from './cards-sqlite.js';
import { MEMORY_STORE_LIMITS, type MemoryStoreLimits } from './memory.js';
import { storeLabel } from './migrations.js';
import { createSqliteOutbox } from './outbox-sqlite.js';
import { createSqliteRunTokens } from './run-tokens-sqlite.js';
import {
  type AnswerPartRow,
  answerPartOf,
  type CardRow,
  type EventRow,
  fromLiveRow,
  fromSummaryRow,
  type LiveTurnRow,
  nonNegative,
  type RefRow,
  refOf,
  type SerializedStrayLog,
  type SerializedTurn,
  type StrayLogRow,
  type SummaryRow,
  serializeEvent,
  serializeStrayLog,
  serializeTurn,
} from './sqlite-rows.js';
import { openDatabase, prepareStatements } from './sqlite-schema.js';
import type {
  CardClaim,
  CardRecord,
  DeadLetterRecord,
  PendingAnswerPart,
  PersistedStrayLog,
  PersistedTurn,
  StoredAnchor,
  StoredCard,
  StoredSpaceSettings,
  TurnlogStore,
  TurnSummary,
} from './store.js';
import { type AnswerPartRef, createWriteBehind } from './write-behind.js';

export type StoreLimits = MemoryStoreLimits;

export interface SqliteStoreOptions {
  /** A database file (created when missing; its directory must exist) or `:memory:`. */
  path: string;
  limits?: Partial<StoreLimits>;
  /**
   * `per-tick` (default): the latest snapshot of each turn and the events of
   * the run record are committed together once per event-loop tick.
   * `immediate`: every `saveTurn` and `appendEvent` is its own transaction.
   */
  writes?: 'per-tick' | 'immediate';
  /** How long a write waits for another connection's lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** A per-tick write that failed in the background (it is tried again). Default: logged to stderr. */
  onWriteError?: (error: Error) => void;
}

/** The store seam, answered synchronously (better-sqlite3 is synchronous). */
export interface SqliteStore extends TurnlogStore {
  readonly path: string;
  saveTurn(turn: PersistedTurn): void;
  loadTurn(turnId: string): PersistedTurn | undefined;
  liveTurns(): PersistedTurn[];
  finishTurn(summary: TurnSummary): void;
  turnSummary(turnId: string): TurnSummary | undefined;
  saveStrayLog(log: PersistedStrayLog): void;
  forgetStrayLog(space: string): void;
  strayLogs(): PersistedStrayLog[];
  saveAnswerParts(parts: PendingAnswerPart[]): void;
  forgetAnswerPart(space: string, key: string, part: number): void;
  pendingAnswerParts(): PendingAnswerPart[];
  saveAnchor(space: string, anchor: StoredAnchor): void;
  anchors(space: string, limit: number): StoredAnchor[];
  appendEvent(event: RunEvent): void;
  events(turnId: string): RunEvent[];
  deadLetter(record: DeadLetterRecord): void;
  deadLetters(limit?: number): DeadLetterRecord[];
  recordPost(clientId: string, message: PostedMessage): void;
  lookupPost(clientId: string): PostedMessage | undefined;
  saveSpaceSettings(space: string, settings: StoredSpaceSettings): void;
  spaceSettings(): Record<string, StoredSpaceSettings>;
  appendAction(action: NewAction & { id: string }, keptAt: number): { action: Action; duplicate: boolean };
  actionsAfter(after: number, limit: number): Action[];
  pruneActions(keptBefore: number, max: number): number;
  actionCursor(consumer: string): string | undefined;
  saveActionCursor(consumer: string, cursor: string): void;
  registerCard(record: CardRecord): void;
  card(space: string, messageId: string): StoredCard | undefined;
  claimCard(
    space: string,
    messageId: string,
    claim: CardClaim,
  ): { first: boolean; claim: CardClaim } | undefined;
  /** Commits the pending writes now (`close()` does too). */
  flush(): void;
  close(): void;
}

export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { path } = options;
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError('createSqliteStore: path must be a database file path or ":memory:"');
  }
  const max = { ...MEMORY_STORE_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(max)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(
        `createSqliteStore: limits.${name} must be a positive integer, got ${String(value)}`,
      );
    }
  }
  const prefix = `${storeLabel(path)}:`;
  const failure = (what: string, error: unknown) => {
    const message = (error as Error).message;
    // Errors of our own already name the path.
    const detail = message.startsWith(prefix) ? message.slice(prefix.length + 1) : message;
    return new Error(`${prefix} ${what} failed: ${detail}`, { cause: error });
  };

  const db = openDatabase(path, options.busyTimeoutMs ?? 5000);
  const s = prepareStatements(db);
  const outbox = createSqliteOutbox(db);
  const openCards = createSqliteOpenCards(db);
  const runTokens = createSqliteRunTokens(db);
  let closed = false;

  /** Deletes the oldest rows of a table past `limit` (rowid order is insertion order). */
  const pruneOldest = (table: 'turn_summaries' | 'dead_letters' | 'posts' | 'cards', limit: number) => {
    const { n } = s.count[table].get() as { n: number };
    if (n > limit) s.deleteOldest[table].run(n - limit);
  };

  const writeStrayLog = (row: SerializedStrayLog) => {
    if (row.snapshot === null) s.deleteStrayLog.run(row.space);
    else s.upsertStrayLog.run(row);
  };

  /** Keeps an answer part, or (null) forgets it. */
  const writeAnswerPart = (ref: AnswerPartRef, part: PendingAnswerPart | null) => {
    if (part === null) {
      s.deleteAnswerPart.run(ref.space, ref.key, ref.part);
      return;
    }
    s.upsertAnswerPart.run({
      space: part.space,
      key: part.key,
      part: part.part,
      parts: part.parts,
      turnId: part.turnId ?? null,
      thread: part.thread ? JSON.stringify(part.thread) : null,
      text: part.text,
      savedAt: part.savedAt,
    });
  };

  /** Appends one event to its run record and prunes the record (and the oldest records) to the bounds. */
  const insertEvent = (row: EventRow) => {
    const { lastInsertRowid } = s.insertEvent.run(row.stream, row.seq, row.type, row.space, row.at, row.json);
    const grown = s.growStream.get(lastInsertRowid, row.stream) as { events: number } | undefined;
    if (!grown) {
      s.insertStream.run(row.stream, lastInsertRowid);
      const { n } = s.countStreams.get() as { n: number };
      if (n > max.turnsWithEvents) {
        for (const { turn_id } of s.oldestStreams.all(n - max.turnsWithEvents) as { turn_id: string }[]) {
          s.deleteStreamEvents.run(turn_id);
          s.deleteStream.run(turn_id);
        }
      }
      return;
    }
    if (grown.events > max.eventsPerTurn) {
      s.deleteOldestEvents.run(row.stream, grown.events - max.eventsPerTurn);
      s.setStreamSize.run(max.eventsPerTurn, row.stream);
    }
  };

  const writeBatch = db.transaction(
    (
      events: EventRow[],
      turns: SerializedTurn[],
      strayLogs: SerializedStrayLog[],
      answerParts: [AnswerPartRef, PendingAnswerPart | null][],
    ) => {
      // Turns first: a turn that just went live has its row before its events are counted for pruning.
      for (const row of turns) s.upsertTurn.run(row);
      for (const row of events) insertEvent(row);
      for (const row of strayLogs) writeStrayLog(row);
      for (const [ref, part] of answerParts) writeAnswerPart(ref, part);
    },
  );
  const reportWriteError =
    options.onWriteError ?? ((error: Error) => console.error(`turnlog: ${error.message}`));
  const pending = createWriteBehind<EventRow>(({ turns, events, strayLogs, answerParts }) => {
    const rows: SerializedTurn[] = [];
    for (const turn of turns) {
      // One unserializable snapshot must not hold back the others: it is reported and dropped.
      try {
        rows.push(serializeTurn(prefix, turn));
      } catch (error) {
        reportWriteError(error as Error);
      }
    }
    const strayRows: SerializedStrayLog[] = [];
    for (const [space, log] of strayLogs) {
      try {
        strayRows.push(serializeStrayLog(prefix, space, log));
      } catch (error) {
        reportWriteError(error as Error);
      }
    }
    try {
      writeBatch(events, rows, strayRows, answerParts);
    } catch (error) {
      const strays = strayRows.length > 0 ? `, ${strayRows.length} stray log(s)` : '';
      const parts = answerParts.length > 0 ? `, ${answerParts.length} answer part(s)` : '';
      throw failure(
        `writing ${rows.length} turn snapshot(s)${strays}${parts} and ${events.length} event(s)`,
        error,
      );
    }
  }, reportWriteError);
  const perTick = (options.writes ?? 'per-tick') === 'per-tick';
  const appendEventNow = db.transaction(insertEvent);
  const saveAnswerPartsNow = db.transaction((parts: PendingAnswerPart[]) => {
    for (const part of parts) writeAnswerPart(part, part);
  });

  const finishTurn = db.transaction((summary: TurnSummary) => {
    s.deleteTurn.run(summary.turnId);
    s.upsertSummary.run({
      turnId: summary.turnId,
      space: summary.space,
      state: summary.state,
      outcome: summary.outcome,
      degraded: summary.degraded ? 1 : 0,
      logMessages: JSON.stringify(summary.logMessages),
      entries: summary.entries,
      deadLetters: summary.deadLetters,
      endedAt: summary.endedAt,
    });
    pruneOldest('turn_summaries', max.summaries);
  });

  const saveAnchor = db.transaction((space: string, anchor: StoredAnchor) => {
    s.insertAnchor.run(space, anchor.messageId, anchor.threadId ?? null, anchor.ref ?? null);
    s.pruneAnchors.run(space, space, max.anchorsPerSpace);
  });

  const deadLetter = db.transaction((record: DeadLetterRecord) => {
    s.insertDeadLetter.run(record.at, record.source, record.reason, record.payload);
    pruneOldest('dead_letters', max.deadLetters);
  });

  const recordPost = db.transaction((clientId: string, message: PostedMessage) => {
    // Replacing moves the ref to the newest row, as the memory store does.
    s.replacePost.run(clientId, message.messageId, message.threadId ?? null);
    pruneOldest('posts', max.posts);
  });

  const registerCard = db.transaction((record: CardRecord) => {
    s.upsertCard.run(record.space, record.messageId, JSON.stringify(record));
    pruneOldest('cards', max.cards);
  });

  const claimCard = db.transaction((space: string, messageId: string, claim: CardClaim) => {
    if (s.claimCard.run(JSON.stringify(claim), space, messageId).changes === 1) return { first: true, claim };
    const row = s.selectCard.get(space, messageId) as CardRow | undefined;
    if (row?.claim == null) return undefined;
    return { first: false, claim: JSON.parse(row.claim) as CardClaim };
  });

  /**
   * Runs one store operation on the open database, after committing what is
   * pending unless the operation is itself a buffered write (so reads see
   * every write, and commits keep the order of the calls). A failure names
   * the path and the operation.
   */
  function guarded<A extends unknown[], R>(
    what: string,
    run: (...args: A) => R,
    buffered = false,
  ): (...args: A) => R {
    return (...args) => {
      if (closed) throw new Error(`${prefix} ${what} after close()`);
      try {
        if (!buffered) pending.flush();
        return run(...args);
      } catch (error) {
        throw failure(what, error);
      }
    };
  }

  return {
    path,
    saveTurn: guarded(
      'saveTurn',
      (turn: PersistedTurn) => {
        if (perTick) pending.putTurn(turn);
        else s.upsertTurn.run(serializeTurn(prefix, turn));
      },
      true,
    ),
    loadTurn: guarded('loadTurn', (turnId: string) => {
      const row = s.selectTurn.get(turnId) as LiveTurnRow | undefined;
      return row ? fromLiveRow(row) : undefined;
    }),
    liveTurns: guarded('liveTurns', () => (s.selectLiveTurns.all() as LiveTurnRow[]).map(fromLiveRow)),
    finishTurn: guarded('finishTurn', (summary: TurnSummary) => finishTurn(summary)),
    // Buffered like a turn's snapshot: a stray log commits with the events that changed it.
    saveStrayLog: guarded(
      'saveStrayLog',
      (log: PersistedStrayLog) => {
        if (perTick) pending.putStrayLog(log.space, log);
        else writeStrayLog(serializeStrayLog(prefix, log.space, log));
      },
      true,
    ),
    forgetStrayLog: guarded(
      'forgetStrayLog',
      (space: string) => {
        if (perTick) pending.putStrayLog(space, null);
        else writeStrayLog({ space, snapshot: null });
      },
      true,
    ),
    strayLogs: guarded('strayLogs', () =>
      (s.selectStrayLogs.all() as StrayLogRow[]).map((row) => ({
        space: row.space,
        snapshot: JSON.parse(row.snapshot),
        updatedAt: row.updated_at,
      })),
    ),
    // Buffered too: an answer's parts commit with the event that carried it, a part's forget with the
    // snapshots of its tick.
    saveAnswerParts: guarded(
      'saveAnswerParts',
      (parts: PendingAnswerPart[]) => {
        for (const part of parts) {
          if (typeof part.text !== 'string')
            throw new TypeError(`part ${part.part} of answer ${part.key} has no text`);
        }
        if (perTick) for (const part of parts) pending.putAnswerPart(part, { ...part });
        else saveAnswerPartsNow(parts);
      },
      true,
    ),
    forgetAnswerPart: guarded(
      'forgetAnswerPart',
      (space: string, key: string, part: number) => {
        if (perTick) pending.putAnswerPart({ space, key, part }, null);
        else writeAnswerPart({ space, key, part }, null);
      },
      true,
    ),
    pendingAnswerParts: guarded('pendingAnswerParts', () =>
      (s.selectAnswerParts.all() as AnswerPartRow[]).map(answerPartOf),
    ),
    turnSummary: guarded('turnSummary', (turnId: string) => {
      const row = s.selectSummary.get(turnId) as SummaryRow | undefined;
      return row ? fromSummaryRow(row) : undefined;
    }),
    saveAnchor: guarded('saveAnchor', (space: string, anchor: StoredAnchor) => saveAnchor(space, anchor)),
    anchors: guarded('anchors', (space: string, limit: number) => {
      const rows = s.selectAnchors.all(space, nonNegative('anchors', limit)) as (RefRow & {
        ref: string | null;
      })[];
      return rows.reverse().map((row) => ({ ...refOf(row), ...(row.ref !== null ? { ref: row.ref } : {}) }));
    }),
    appendEvent: guarded(
      'appendEvent',
      (event: RunEvent) => {
        const row = serializeEvent(prefix, event);
        if (perTick) pending.appendEvent(row);
        else appendEventNow(row);
      },
      true,
    ),
    events: guarded('events', (turnId: string) =>
      (s.selectEvents.all(turnId) as { event: string }[]).map((row) => JSON.parse(row.event) as RunEvent),
    ),
    deadLetter: guarded('deadLetter', (record: DeadLetterRecord) => deadLetter(record)),
    deadLetters: guarded('deadLetters', (limit: number = max.deadLetters) =>
      (s.selectDeadLetters.all(nonNegative('deadLetters', limit)) as DeadLetterRecord[]).reverse(),
    ),
    recordPost: guarded('recordPost', (clientId: string, message: PostedMessage) =>
      recordPost(clientId, message),
    ),
    lookupPost: guarded('lookupPost', (clientId: string) => {
      const row = s.selectPost.get(clientId) as RefRow | undefined;
      return row ? refOf(row) : undefined;
    }),
    saveSpaceSettings: guarded('saveSpaceSettings', (space: string, settings: StoredSpaceSettings) => {
      if (Object.keys(settings).length === 0) s.deleteSpaceSettings.run(space);
      else s.upsertSpaceSettings.run(space, JSON.stringify(settings));
    }),
    spaceSettings: guarded('spaceSettings', () =>
      Object.fromEntries(
        (s.selectSpaceSettings.all() as { space: string; settings: string }[]).map((row) => [
          row.space,
          JSON.parse(row.settings) as StoredSpaceSettings,
        ]),
      ),
    ),
    appendAction: guarded('appendAction', outbox.appendAction),
    actionsAfter: guarded('actionsAfter', (after: number, limit: number) =>
      outbox.actionsAfter(after, nonNegative('actionsAfter', limit)),
    ),
    pruneActions: guarded('pruneActions', outbox.pruneActions),
    actionCursor: guarded('actionCursor', outbox.actionCursor),
    saveActionCursor: guarded('saveActionCursor', outbox.saveActionCursor),
    actionsStoreId: guarded('actionsStoreId', outbox.actionsStoreId),
    lastActionSeq: guarded('lastActionSeq', outbox.lastActionSeq),
    openCards: guarded('openCards', openCards),
    saveRunToken: guarded('saveRunToken', runTokens.saveRunToken),
    runTokenHashes: guarded('runTokenHashes', runTokens.runTokenHashes),
    forgetRunsEndedBefore: guarded('forgetRunsEndedBefore', runTokens.forgetRunsEndedBefore),
    registerCard: guarded('registerCard', (record: CardRecord) => registerCard(record)),
    card: guarded('card', (space: string, messageId: string) => {
      const row = s.selectCard.get(space, messageId) as CardRow | undefined;
      if (!row) return undefined;
      const record = JSON.parse(row.record) as CardRecord;
      return row.claim === null ? record : { ...record, claim: JSON.parse(row.claim) as CardClaim };
    }),
    // Immediate: a second process (or a restart) must never let a second click win.
    claimCard: guarded('claimCard', (space: string, messageId: string, claim: CardClaim) =>
      claimCard.immediate(space, messageId, claim),
    ),
    flush: guarded('flush', () => pending.flush(), true),
    close() {
      if (closed) return;
      closed = true;
      pending.cancel();
      try {
        pending.flush();
      } catch (error) {
        throw failure('committing the pending writes on close', error);
      } finally {
        db.close();
      }
    },
  };
}
