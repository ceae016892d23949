/**
 * The space's part in a turn's presence (issue 26): what a turn's presence
 * actor starts with (reactions on its root, typing where the platform has
 * it), folding adopted messages into a live turn (`messages_adopted`), and
 * telling the presence how the turn ended. Split out of
 * space.implementations.ts, which hands these to `spaceMachine.provide`.
 */
import { enqueueActions } from 'xstate';
import type { PresenceInput, PresenceRoot } from '../../machines/presence.machine.js';
import {
  type InboundAnchor,
  liveRootsOf,
  presenceIdOf,
  type SpaceContext,
  type spaceMachine,
  turnActorId,
} from '../../machines/space.machine.js';
import type { TurnLogItem } from '../../machines/turn.machine.js';
import { redactSecrets } from '../events/redact.js';
import type { RunEvent } from '../events/schema.js';
import { OUTCOME_REACTIONS, WORKING_REACTION } from '../surfaces/reactions.js';
import type { ChatSurface, ThreadAnchor } from '../surfaces/surface.js';

type SpaceActions = NonNullable<Parameters<typeof spaceMachine.provide>[0]['actions']>;

/** An adopted message as the space knows it: where it is, and what intake or the host said of it. */
interface AdoptedFound {
  messageId: string;
  threadId?: string;
  text?: string;
  user?: string;
}

/** The newest recent inbound message that matches. */
const anchorFor = (context: SpaceContext, match: (anchor: InboundAnchor) => boolean) =>
  [...context.anchors].reverse().find(match);

/** Words of an adopted message shown in the log. */
const ADOPTED_WORDS = 8;
const ADOPTED_CHARS = 80;

/** The log line of an adopted message: who, and its first words (redacted, on one line). */
export function adoptedLine(message: { text?: string; user?: string }): string {
  const who = message.user ?? 'a person';
  const words = redactSecrets(message.text ?? '')
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return `↪ joined this turn: a message from ${who}`;
  let shown = words.slice(0, ADOPTED_WORDS).join(' ');
  if (shown.length > ADOPTED_CHARS) shown = `${shown.slice(0, ADOPTED_CHARS - 1)}…`;
  else if (words.length > ADOPTED_WORDS) shown = `${shown} …`;
  return `↪ joined this turn: ${who}: “${shown}”`;
}

/**
 * Where a reaction on a message goes: the message, and its thread only when
 * the message is inside one (a root is in its channel: on Discord its thread
 * shares its id, and a reaction there would address the thread channel).
 */
export const reactionRoot = (messageId: string, threadId: string | undefined): PresenceRoot =>
  threadId !== undefined && threadId !== messageId ? { messageId, threadId } : { messageId };

export interface SpacePresenceDeps {
  deps: {
    now(): number;
    onWarning?: ((space: string, message: string) => void) | undefined;
  };
  surfaceFor(space: string): ChatSurface;
  logItemOf(event: RunEvent): TurnLogItem | null;
}

export function createSpacePresence({ deps, surfaceFor, logItemOf }: SpacePresenceDeps) {
  /** A turn's presence: reactions on its root (`visibility.reactions`, a surface with reactions), typing where the platform has it. */
  const inputFor = (
    context: SpaceContext,
    turnId: string,
    root: ThreadAnchor | null,
  ): PresenceInput | undefined => {
    let surface: ChatSurface;
    try {
      surface = surfaceFor(context.space);
    } catch {
      return undefined;
    }
    const reactions =
      context.settings.reactions !== false &&
      surface.reactions !== undefined &&
      root?.rootMessageId !== undefined;
    const typing = surface.typing !== undefined;
    if (!reactions && !typing) return undefined;
    return {
      turnId,
      space: context.space,
      roots: reactions && root?.rootMessageId ? [reactionRoot(root.rootMessageId, root.threadId)] : [],
      reactions,
      typing,
      emoji: { working: WORKING_REACTION, ...OUTCOME_REACTIONS },
    };
  };

  const adoptMessages: SpaceActions['adoptMessages'] = enqueueActions(
    ({ context, enqueue, self }, params) => {
      const { event } = params;
      const turnId = event.turnId;
      const record = context.turns[turnId];
      if (!record) return;
      const found: AdoptedFound[] = (event.messages ?? []).map((m) => ({
        messageId: m.messageId,
        ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
        ...(m.text !== undefined ? { text: m.text } : {}),
        ...(anchorFor(context, (a) => a.messageId === m.messageId)?.user !== undefined
          ? { user: anchorFor(context, (a) => a.messageId === m.messageId)?.user }
          : {}),
      }));
      for (const ref of event.refs ?? []) {
        const anchor = anchorFor(context, (a) => a.ref === ref);
        if (!anchor) {
          deps.onWarning?.(
            context.space,
            `turn ${turnId}: adopted message ${ref} is not among the last ${context.settings.anchorCapacity} inbound messages; not adopted`,
          );
          continue;
        }
        found.push(anchor);
      }
      const owners = liveRootsOf(context, turnId);
      const own = new Set([record.anchor?.rootMessageId, ...(record.adopted ?? [])]);
      const fresh = found.filter((m, i) => {
        if (own.has(m.messageId) || found.findIndex((o) => o.messageId === m.messageId) !== i) return false;
        const owner = owners.get(m.messageId);
        if (owner === undefined) return true;
        deps.onWarning?.(
          context.space,
          `turn ${turnId}: message ${m.messageId} belongs to live turn ${owner}; not adopted`,
        );
        return false;
      });
      if (fresh.length === 0) return;
      const where = (m: AdoptedFound) => ({
        messageId: m.messageId,
        ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
      });
      const actor = turnActorId(context, turnId);
      enqueue.sendTo(actor, { type: 'turn.adopt', messages: fresh.map(where) });
      const items = fresh
        .map((m) =>
          logItemOf({ type: 'note', space: context.space, turnId, text: adoptedLine(m), at: deps.now() }),
        )
        .filter((item): item is TurnLogItem => item !== null);
      const [first, ...following] = items;
      if (first) {
        enqueue.sendTo(actor, {
          type: 'turn.log',
          ...first,
          ...(following.length > 0 ? { following } : {}),
        });
      }
      const presence = presenceIdOf(context, turnId);
      if (presence !== undefined && self.getSnapshot().children[presence] !== undefined) {
        enqueue.sendTo(presence, {
          type: 'presence.adopt',
          roots: fresh.map((m) => reactionRoot(m.messageId, m.threadId)),
        });
      }
      enqueue.assign({
        turns: {
          ...context.turns,
          [turnId]: { ...record, adopted: [...(record.adopted ?? []), ...fresh.map((m) => m.messageId)] },
        },
      });
    },
  );
  const endPresence: SpaceActions['endPresence'] = enqueueActions(({ context, enqueue, self }, params) => {
    const id = presenceIdOf(context, params.turnId);
    if (id === undefined || self.getSnapshot().children[id] === undefined) return;
    enqueue.sendTo(id, { type: 'presence.end', outcome: params.outcome });
  });
  return { inputFor, adoptMessages, endPresence };
}
