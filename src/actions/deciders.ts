/**
 * Who may decide a turn's cards (docs/http-api.md, "Who may decide";
 * docs/http-api.md (actions)): with `actions.deciders: "requester+approvers"` (the
 * default), a policy card's Approve/Reject, a question's options and Stop
 * count only when pressed by the turn's requester or an approver. The
 * requester is `turn_started.requestedBy`, else the author of the turn's root
 * message as intake saw it; approvers are `actions.approvers` plus
 * `spaces.<space>.approvers`. With neither a requester nor an approver,
 * anyone may, and the turn's warnings say so once it has something to
 * decide (a policy request or a question; every turn when logs carry Stop).
 *
 * The book also knows which turns ended (their cards' late presses make no
 * action). It learns from the events the runtime admits and the messages
 * intake records; after a restart it reads a turn's `turn_started` from the
 * run record. Root authors are kept in memory (bounded): a root posted before
 * a restart is unknown, so such a turn falls back to approvers (or anyone).
 */
import type { TurnlogConfig } from '../config.js';
import type { RunEvent } from '../events/schema.js';
import type { TurnlogStore } from '../store/store.js';
import type { ActionUser } from './types.js';

/** How many root authors, turns and ended turns are remembered (the oldest go first). */
const REMEMBERED = 10_000;

interface TurnOrigin {
  space: string;
  requestedBy?: string;
  rootMessageId?: string;
  rootRef?: string;
}

export type DecideVerdict = { allowed: true } | { allowed: false; text: string };

export interface DeciderBook {
  /** A person's message recorded by intake (its id and the action id that names it as `rootRef`). */
  noteMessage(space: string, messageId: string, ref: string, user: ActionUser): void;
  /** An event the runtime admitted: `turn_started` gives the requester, `turn_ended` ends the turn. */
  noteEvent(event: RunEvent): void;
  /** The turn's host said it ended (its cards' presses make no action from now on). */
  hasEnded(turnId: string): boolean;
  /** May this person decide the turn's cards? */
  mayDecide(turnId: string, space: string, user: ActionUser): Promise<DecideVerdict>;
  /** The warning of a turn anyone may decide (no requester known, no approvers), if it is one. */
  warningOf(turnId: string): string | undefined;
}

export interface DeciderBookOptions {
  config: Pick<TurnlogConfig, 'actions' | 'spaces'>;
  /** The run record, for a turn started before this process (its `turn_started`). */
  store: Pick<TurnlogStore, 'events'>;
  /** Live logs carry Stop (`visibility.stopButton`): every turn has something to decide. */
  stopButton?: boolean;
}

/** Sets a key, dropping the oldest past the bound (insertion order). */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as K);
}

export function createDeciderBook(options: DeciderBookOptions): DeciderBook {
  const { actions, spaces } = options.config;
  const authors = new Map<string, string>();
  const origins = new Map<string, TurnOrigin>();
  const ended = new Map<string, true>();
  const warnings = new Map<string, string>();
  const key = (space: string, id: string) => `${space}\u0000${id}`;

  const approversOf = (space: string): string[] => [
    ...actions.approvers,
    ...(spaces[space]?.approvers ?? []),
  ];

  const requesterOf = (origin: TurnOrigin): string | undefined =>
    origin.requestedBy ??
    (origin.rootMessageId !== undefined ? authors.get(key(origin.space, origin.rootMessageId)) : undefined) ??
    (origin.rootRef !== undefined ? authors.get(key(origin.space, origin.rootRef)) : undefined);

  const originOf = (event: Extract<RunEvent, { type: 'turn_started' }>): TurnOrigin => ({
    space: event.space,
    ...(event.requestedBy !== undefined ? { requestedBy: event.requestedBy } : {}),
    ...(event.root?.messageId !== undefined ? { rootMessageId: event.root.messageId } : {}),
    ...(event.rootRef !== undefined ? { rootRef: event.rootRef } : {}),
  });

  /** Warns once the turn has something to decide (a card, or Stop) and anyone may decide it. */
  const warnIfOpen = (turnId: string) => {
    const origin = origins.get(turnId);
    if (origin === undefined || warnings.has(turnId)) return;
    if (
      actions.deciders === 'anyone' ||
      requesterOf(origin) !== undefined ||
      approversOf(origin.space).length > 0
    )
      return;
    remember(
      warnings,
      turnId,
      'anyone in the space may decide this turn’s cards and press Stop: its requester is unknown ' +
        '(no turn_started.requestedBy, and intake did not see the root message) and no approvers are ' +
        `configured (actions.approvers, spaces["${origin.space}"].approvers)`,
    );
  };

  /** The turn's origin; for a turn started before this process, read from the run record. */
  const lookUp = async (turnId: string): Promise<TurnOrigin | undefined> => {
    const known = origins.get(turnId);
    if (known) return known;
    const started = (await options.store.events(turnId)).find((e) => e.type === 'turn_started');
    if (started?.type !== 'turn_started' || started.turnId === undefined) return undefined;
    const origin = originOf(started);
    remember(origins, turnId, origin);
    return origin;
  };

  return {
    noteMessage(space, messageId, ref, user) {
      remember(authors, key(space, messageId), user.id);
      remember(authors, key(space, ref), user.id);
    },
    noteEvent(event) {
      if (event.turnId === undefined) return;
      if (event.type === 'turn_started') {
        remember(origins, event.turnId, originOf(event));
        if (options.stopButton) warnIfOpen(event.turnId);
      } else if (event.type === 'policy_request' || event.type === 'question') warnIfOpen(event.turnId);
      else if (event.type === 'turn_ended') remember(ended, event.turnId, true);
    },
    hasEnded: (turnId) => ended.has(turnId),
    async mayDecide(turnId, space, user) {
      if (actions.deciders === 'anyone') return { allowed: true };
      const approvers = approversOf(space);
      if (approvers.includes(user.id)) return { allowed: true };
      const origin = await lookUp(turnId);
      const requester = origin && requesterOf(origin);
      if (requester === undefined && approvers.length === 0) return { allowed: true };
      if (requester === user.id) return { allowed: true };
      return {
        allowed: false,
        text: 'Only the person who asked for this turn or an approver can press this; your press changed nothing.',
      };
    },
    warningOf: (turnId) => warnings.get(turnId),
  };
}
