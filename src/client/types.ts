/** The public shape of the turnlog clients (HTTP and in-process). */
import type { Action } from '../actions/types.js';
import type { RunEventOf, RunEventType } from '../events/schema.js';
import type { ActionsOptions } from './actions.js';
import type { EventNotAcceptedError } from './errors.js';

/** The fields of a run event without the index signature its loose schema adds. */
type KnownFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/** Fields a scope stamps on every event it logs. */
type ScopeStamped = 'space' | 'turnId' | 'subagentId' | 'parentSubagentId' | 'seq';

/** Events a scope logs as given; the turn's own lifecycle has its own methods. */
export type ScopeEventType = Exclude<RunEventType, 'inbound' | 'turn_started' | 'turn_ended' | 'subagent'>;

/** A run event as a scope takes it: `space`, `turnId` and the subagent ids are stamped by the scope. */
export type ScopeEvent = {
  [T in ScopeEventType]: Omit<KnownFields<RunEventOf<T>>, ScopeStamped>;
}[ScopeEventType];

export interface StartTurnOptions {
  /** The chat space: `gchat:spaces/AAAA`, `slack:C0123ABCD`, `discord:<channel id>`. */
  space: string;
  /** The user's message the turn answers (its thread holds the log). */
  root?: { messageId: string; threadId?: string };
  /** The host's own id of a recent `inbound` message, instead of `root`. */
  rootRef?: string;
  /** Default: a fresh UUID. */
  turnId?: string;
  dm?: boolean;
  /** A proactive turn's header. */
  title?: string;
}

export interface InboundOptions {
  space: string;
  /** The platform's id of the person's message (GChat message name, Slack ts, Discord message id). */
  messageId: string;
  threadId?: string;
  /** The host's own id for it, for a later `startTurn({rootRef})`. */
  ref?: string;
  dm?: boolean;
}

export interface ToolResultOptions {
  ok: boolean;
  output?: string;
  exitCode?: number;
  summary?: string;
  /** Default: the tool this scope's `toolCall` gave that `callId`. */
  tool?: string;
}

/** What a scope can log: the agent itself, or a subagent inside its turn. */
export interface EventScope {
  /** The ROOT turn's id: every subagent, however deep, logs under it. */
  readonly turnId: string;
  readonly space: string;
  /** Set inside a subagent. */
  readonly subagentId?: string;
  /** Set inside a nested subagent: the subagent that spawned this one. */
  readonly parentSubagentId?: string;
  /** 0 for the turn, 1 for a subagent, 2 for a subagent's subagent. */
  readonly depth: number;
  /** Stamps `space`, `turnId` and the subagent ids, then queues the event. Throws once the scope has ended. */
  log(event: ScopeEvent): void;
  /** Logs a `tool_call` and returns its `callId` (a fresh UUID unless given). */
  toolCall(
    tool: string,
    input?: Record<string, unknown>,
    options?: { callId?: string; summary?: string },
  ): string;
  toolResult(callId: string, result: ToolResultOptions): void;
  note(text: string, level?: 'info' | 'warn' | 'error'): void;
  assistant(text: string): void;
  /** Logs `subagent` started and returns the subagent's scope, one level deeper (up to the client's limit). */
  subagent(name: string, options?: { subagentId?: string }): SubagentScope;
}

export interface TurnScope extends EventScope {
  /** The final reply (top-level). */
  answer(text: string): void;
  /**
   * Logs `turn_ended`, sends everything queued, and resolves once the ingest
   * has answered. Rejects with a `DeliveryError` listing this turn's events
   * that were not accepted (unless the client has `onRejected`).
   */
  end(outcome?: 'ok' | 'error' | 'stopped'): Promise<void>;
  /**
   * Calls `callback` with each `decision` on this turn's policy cards (only
   * `requestId`'s when given), those made before the call included. Returns
   * the unsubscribe; listening stops when the turn ends.
   */
  onDecision(callback: (action: DecisionAction) => void): () => void;
  onDecision(requestId: string, callback: (action: DecisionAction) => void): () => void;
  /** The same for `answer`s to this turn's questions (only `questionId`'s when given). */
  onAnswer(callback: (action: AnswerAction) => void): () => void;
  onAnswer(questionId: string, callback: (action: AnswerAction) => void): () => void;
  /** The same for a person pressing Stop on this turn's log. */
  onStop(callback: (action: StopAction) => void): () => void;
}

export type DecisionAction = Extract<Action, { type: 'decision' }>;
export type AnswerAction = Extract<Action, { type: 'answer' }>;
export type StopAction = Extract<Action, { type: 'stop' }>;

export interface SubagentScope extends EventScope {
  readonly subagentId: string;
  readonly name: string;
  /** Logs `subagent` done or failed; the scope logs nothing after it. */
  end(status?: 'done' | 'failed'): void;
}

/** Totals since the client was created. */
export interface DeliveryCounts {
  /** Events handed to the ingest (posted, or passed to `runtime.ingest`). */
  sent: number;
  accepted: number;
  /** Refused by the ingest, or not delivered after the retries. */
  rejected: number;
}

/** What became of the events settled since the previous report. */
export interface DeliveryReport {
  accepted: number;
  rejected: EventNotAcceptedError[];
}

export interface TurnlogClient {
  startTurn(options: StartTurnOptions): TurnScope;
  /** Records a person's message so a turn can anchor on it by `rootRef`. */
  inbound(options: InboundOptions): void;
  /**
   * Queues a run event exactly as given (replaying a file, a host's own event
   * types); the HTTP client sends it with an `eventId` when it has none.
   */
  send(event: Record<string, unknown>): void;
  /**
   * People's actions (docs/http-api.md, "Actions"), oldest kept first (or
   * after `after`): long polls, yields each action in order and moves the
   * cursor on; ends when `signal` aborts or the client closes.
   */
  actions(options?: ActionsOptions): AsyncGenerator<Action>;
  /** Sends everything queued; resolves with what became of the events settled since the last report. */
  flush(): Promise<DeliveryReport>;
  /**
   * Flushes and stops; `send` throws afterwards. Rejects with a
   * `DeliveryError` listing the events not accepted that no report or
   * `onRejected` has shown yet.
   */
  close(): Promise<void>;
  readonly counts: Readonly<DeliveryCounts>;
}

export interface ClientOptions {
  /** Called for each event the ingest did not accept, as soon as that is known. */
  onRejected?: (error: EventNotAcceptedError) => void;
  /** Nesting limit of `subagent()` (the reference spec's MAX_SUBAGENT_DEPTH). Default 2. */
  maxSubagentDepth?: number;
  /** A turn scope's actions callback threw, or its actions could not be read. Default: logged to stderr. */
  onActionError?: (error: unknown) => void;
}
