/**
 * The client facade both clients share: turn scopes, inbound anchors and raw
 * events over a transport (HTTP batches, or `runtime.ingest` in process),
 * with every event's fate kept in a ledger.
 */
import { randomUUID } from 'node:crypto';
import { SPACE_PATTERN } from '../events/schema.js';
import { type ActionsPoll, iterateActions, watchTurnActions } from './actions.js';
import { DeliveryError } from './errors.js';
import type { DeliveryLedger } from './ledger.js';
import { createTurnScope, type ScopeContext } from './scope.js';
import type { ClientOptions, InboundOptions, StartTurnOptions, TurnlogClient, TurnScope } from './types.js';

/** Where a client's events go. It tells the ledger what became of each. */
export interface EventTransport {
  /** Queues an event; throws when it cannot be encoded. */
  enqueue(event: Record<string, unknown>): void;
  /** Resolves once every event queued so far is settled (accepted, rejected or given up on). */
  drain(): Promise<void>;
  /** Drains, then releases timers. */
  close(): Promise<void>;
}

/** The reference spec's MAX_SUBAGENT_DEPTH. */
export const DEFAULT_MAX_SUBAGENT_DEPTH = 2;

export function buildClient(
  transport: EventTransport,
  ledger: DeliveryLedger,
  options: ClientOptions & { now?: () => number; poll?: ActionsPoll },
): TurnlogClient {
  const maxSubagentDepth = options.maxSubagentDepth ?? DEFAULT_MAX_SUBAGENT_DEPTH;
  if (!Number.isInteger(maxSubagentDepth) || maxSubagentDepth < 0) {
    throw new RangeError(`maxSubagentDepth must be an integer ≥ 0, got ${String(options.maxSubagentDepth)}`);
  }
  let closed = false;
  /** Ends every actions iterator of this client (its own and the turn scopes') on close(). */
  const closing = new AbortController();
  const { poll } = options;
  const reportActionError =
    options.onActionError ??
    ((error: unknown) => console.error('turnlog: an actions callback failed:', error));

  const send = (event: Record<string, unknown>) => {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      throw new TypeError('send: a run event is a JSON object');
    }
    if (closed) throw new Error(`the turnlog client is closed; ${String(event.type)} event refused`);
    transport.enqueue(event);
  };

  const scopeContext: ScopeContext = {
    emit: send,
    ...(poll
      ? {
          watchActions: (turnId: string) =>
            watchTurnActions(
              turnId,
              (signal) => iterateActions(poll, { signal: AbortSignal.any([signal, closing.signal]) }),
              reportActionError,
            ),
        }
      : {}),
    maxSubagentDepth,
    ...(options.now ? { now: options.now } : {}),
    async endTurn(turnId) {
      await transport.drain();
      const errors = ledger.takeUnseen(turnId);
      if (errors.length > 0) throw new DeliveryError(errors, `of turn ${turnId}`);
    },
  };

  return {
    get counts() {
      return ledger.counts;
    },
    startTurn(turn: StartTurnOptions): TurnScope {
      assertSpace('startTurn', turn.space);
      if (turn.turnId !== undefined && (typeof turn.turnId !== 'string' || turn.turnId === '')) {
        throw new TypeError('startTurn: turnId must be a non-empty string when given');
      }
      const turnId = turn.turnId ?? randomUUID();
      const { space, root, rootRef, dm, title } = turn;
      send({
        type: 'turn_started',
        space,
        turnId,
        ...(root !== undefined ? { root } : {}),
        ...(rootRef !== undefined ? { rootRef } : {}),
        ...(dm !== undefined ? { dm } : {}),
        ...(title !== undefined ? { title } : {}),
        ...(options.now ? { at: options.now() } : {}),
      });
      return createTurnScope(scopeContext, { turnId, space });
    },
    inbound(message: InboundOptions) {
      assertSpace('inbound', message.space);
      send({ type: 'inbound', ...message, ...(options.now ? { at: options.now() } : {}) });
    },
    send,
    actions(actionsOptions = {}) {
      if (!poll) {
        throw new Error(
          'actions: this client has no actions source (createInProcessClient needs a runtime with actions())',
        );
      }
      const signals = [closing.signal, ...(actionsOptions.signal ? [actionsOptions.signal] : [])];
      return iterateActions(poll, { ...actionsOptions, signal: AbortSignal.any(signals) });
    },
    async flush() {
      await transport.drain();
      return ledger.takeReport();
    },
    async close() {
      closed = true;
      closing.abort();
      await transport.close();
      const errors = ledger.takeUnseen();
      if (errors.length > 0) throw new DeliveryError(errors);
    },
  };
}

function assertSpace(what: string, space: unknown): void {
  if (typeof space !== 'string' || !SPACE_PATTERN.test(space)) {
    throw new TypeError(
      `${what}: space ${JSON.stringify(space)} is not a platform-prefixed space (gchat:spaces/AAAA, slack:C0123ABCD, discord:<channel id>)`,
    );
  }
}
