/**
 * Turn and subagent scopes (reference spec §1a "turnId propagation through
 * subagents"): every scope of a turn, however deep, stamps the ROOT turn's
 * id, so a subagent's events land in the same thread and log message as its
 * parent's instead of opening a turn of their own.
 */
import { randomUUID } from 'node:crypto';
import type { Action } from '../actions/types.js';
import type { TurnActionWatch } from './actions.js';
import type {
  AnswerAction,
  DecisionAction,
  EventScope,
  ScopeEvent,
  StopAction,
  SubagentScope,
  ToolResultOptions,
  TurnScope,
} from './types.js';

export interface ScopeContext {
  /** Queues a finished event. */
  emit(event: Record<string, unknown>): void;
  /** Sends everything queued; throws a `DeliveryError` for this turn's events not accepted. */
  endTurn(turnId: string): Promise<void>;
  maxSubagentDepth: number;
  /** Stamps `at` when the ingest may see the event later than it happened (batching). */
  now?: () => number;
  /** Watches a turn's actions (absent: the client has no actions source). */
  watchActions?(turnId: string): TurnActionWatch;
}

/** Types a scope logs through its own methods, and which method. */
const LIFECYCLE_TYPES = new Map([
  ['inbound', 'client.inbound()'],
  ['turn_started', 'client.startTurn()'],
  ['turn_ended', 'end()'],
  ['subagent', 'subagent() and the subagent scope’s end()'],
]);

/** Whether the turn is still open, shared by every scope of the turn. */
interface TurnState {
  ended: boolean;
}

abstract class BaseScope implements EventScope {
  /** callId → tool, so `toolResult` needs no tool name. */
  private readonly calls = new Map<string, string>();

  constructor(
    protected readonly context: ScopeContext,
    protected readonly turn: TurnState,
    readonly turnId: string,
    readonly space: string,
    readonly depth: number,
    readonly subagentId?: string,
    readonly parentSubagentId?: string,
  ) {}

  log(event: ScopeEvent): void {
    const type = (event as { type?: unknown }).type;
    if (typeof type !== 'string' || type === '') {
      throw new TypeError('log: the event needs a "type" (tool_call, tool_result, assistant, note, …)');
    }
    const method = LIFECYCLE_TYPES.get(type);
    if (method !== undefined) throw new TypeError(`log: ${type} events are logged by ${method}`);
    this.emit(event as unknown as Record<string, unknown>);
  }

  toolCall(
    tool: string,
    input?: Record<string, unknown>,
    options: { callId?: string; summary?: string } = {},
  ): string {
    const callId = options.callId ?? randomUUID();
    this.emit({
      type: 'tool_call',
      callId,
      tool,
      ...(input !== undefined ? { input } : {}),
      ...(options.summary !== undefined ? { summary: options.summary } : {}),
    });
    this.calls.set(callId, tool);
    return callId;
  }

  toolResult(callId: string, result: ToolResultOptions): void {
    const { tool: given, ...fields } = result;
    const tool = given ?? this.calls.get(callId);
    if (tool === undefined) {
      throw new Error(
        `toolResult: call ${callId} was not made by this scope's toolCall(); pass the tool name ({tool})`,
      );
    }
    this.emit({ type: 'tool_result', callId, tool, ...fields });
  }

  note(text: string, level?: 'info' | 'warn' | 'error'): void {
    this.emit({ type: 'note', text, ...(level !== undefined ? { level } : {}) });
  }

  assistant(text: string): void {
    this.emit({ type: 'assistant', text });
  }

  subagent(name: string, options: { subagentId?: string } = {}): SubagentScope {
    this.assertOpen(`subagent("${name}")`);
    const depth = this.depth + 1;
    if (depth > this.context.maxSubagentDepth) {
      throw new RangeError(
        `subagent("${name}"): subagents nest at most ${this.context.maxSubagentDepth} levels deep (maxSubagentDepth) and this scope is already at depth ${this.depth}`,
      );
    }
    if (options.subagentId === '') throw new TypeError(`subagent("${name}"): subagentId must not be empty`);
    const child = new Subagent(
      this.context,
      this.turn,
      this.turnId,
      this.space,
      depth,
      options.subagentId ?? randomUUID(),
      this.subagentId,
      name,
    );
    child.announce('started');
    return child;
  }

  /** Stamps the scope's ids (and `at`) on an event and queues it. */
  protected emit(event: Record<string, unknown>, what = `log ${String(event.type)}`): void {
    this.assertOpen(what);
    for (const field of ['turnId', 'space'] as const) {
      if (event[field] !== undefined && event[field] !== this[field]) {
        throw new Error(
          `${what}: the event carries ${field} ${JSON.stringify(event[field])}, but this scope logs ${field} ${JSON.stringify(this[field])}`,
        );
      }
    }
    this.context.emit({
      ...event,
      space: this.space,
      turnId: this.turnId,
      ...(this.subagentId !== undefined ? { subagentId: this.subagentId } : {}),
      ...(this.parentSubagentId !== undefined ? { parentSubagentId: this.parentSubagentId } : {}),
      ...(event.at === undefined && this.context.now ? { at: this.context.now() } : {}),
    });
  }

  protected assertOpen(what: string): void {
    if (this.turn.ended) throw new Error(`${what}: turn ${this.turnId} has ended`);
  }
}

class Turn extends BaseScope implements TurnScope {
  private watch: TurnActionWatch | undefined;

  answer(text: string): void {
    this.emit({ type: 'answer', text });
  }

  async end(outcome: 'ok' | 'error' | 'stopped' = 'ok'): Promise<void> {
    this.emit({ type: 'turn_ended', outcome }, `end(${outcome})`);
    this.turn.ended = true;
    this.watch?.close();
    await this.context.endTurn(this.turnId);
  }

  onDecision(
    ...args: [(action: DecisionAction) => void] | [string, (action: DecisionAction) => void]
  ): () => void {
    return this.listen('decision', 'onDecision', args);
  }

  onAnswer(...args: [(action: AnswerAction) => void] | [string, (action: AnswerAction) => void]): () => void {
    return this.listen('answer', 'onAnswer', args);
  }

  onStop(callback: (action: StopAction) => void): () => void {
    return this.listen('stop', 'onStop', [callback]);
  }

  private listen<A extends Action>(
    type: A['type'],
    method: string,
    args: [(action: A) => void] | [string, (action: A) => void],
  ): () => void {
    this.assertOpen(`${method}()`);
    const [key, callback] = args.length === 1 ? [undefined, args[0]] : args;
    if (typeof callback !== 'function')
      throw new TypeError(`${method}: the last argument must be a callback`);
    if (key !== undefined && (typeof key !== 'string' || key === ''))
      throw new TypeError(`${method}: the id to listen for must be a non-empty string`);
    const watchActions = this.context.watchActions;
    if (!watchActions) {
      throw new Error(
        `${method}: this client has no actions source (createInProcessClient needs a runtime with actions())`,
      );
    }
    this.watch ??= watchActions(this.turnId);
    return this.watch.on(type, key, callback as (action: Action) => void);
  }
}

class Subagent extends BaseScope implements SubagentScope {
  declare readonly subagentId: string;
  private ended = false;

  constructor(
    context: ScopeContext,
    turn: TurnState,
    turnId: string,
    space: string,
    depth: number,
    subagentId: string,
    parentSubagentId: string | undefined,
    readonly name: string,
  ) {
    super(context, turn, turnId, space, depth, subagentId, parentSubagentId);
  }

  /** The `subagent` status event: its `subagentId` is this subagent, its parent the one that spawned it. */
  announce(status: 'started' | 'done' | 'failed'): void {
    this.emit({ type: 'subagent', status, name: this.name }, `subagent ${this.name} ${status}`);
  }

  end(status: 'done' | 'failed' = 'done'): void {
    this.announce(status);
    this.ended = true;
  }

  protected override assertOpen(what: string): void {
    super.assertOpen(what);
    if (this.ended) throw new Error(`${what}: subagent ${this.name} (${this.subagentId}) has ended`);
  }
}

export function createTurnScope(context: ScopeContext, turn: { turnId: string; space: string }): TurnScope {
  return new Turn(context, { ended: false }, turn.turnId, turn.space, 0);
}
