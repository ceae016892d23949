/**
 * The space supervisor's context, input and events (machines/space.machine.ts).
 * Run events reach a space as typed events, one per kind of handling
 * (`spaceEventOf`): an anchor, a turn's start, a turn's end, anything else
 * for routing.
 */
import type { ActionUser } from '../src/actions/types.js';
import type { RunEvent, RunEventOf } from '../src/events/schema.js';
import type { SpaceRoutingConfig } from '../src/routing/types.js';
import type { FrameCard } from '../src/surfaces/frame.js';
import type { ThreadAnchor } from '../src/surfaces/surface.js';
import type { DeliveryInput } from './delivery.machine.js';
import type { TurnSettings } from './turn.machine.js';

export interface InboundAnchor {
  messageId: string;
  threadId?: string;
  ref?: string;
  /** What the person wrote and who they are, as intake saw it (shown when the message is adopted). */
  text?: string;
  user?: string;
}

export interface SpaceSettings {
  routing: SpaceRoutingConfig;
  turn: TurnSettings;
  /** Recent inbound messages kept to anchor turns. Default 50. */
  anchorCapacity: number;
  /** Restarts of a crashed turn before its log is degraded to top-level. Default 3. */
  maxRestarts: number;
  /** Post the final answer in the turn's thread instead of top-level. Default false. */
  finalReplyInThread: boolean;
  /** Proactive turns (a title, no root): `header` posts `🕒 <title>` and threads the log under it. Default `header`. */
  jobs: 'header' | 'top-level';
  /** Reactions on a turn's roots (`visibility.reactions`, issue 26). Default true. */
  reactions?: boolean;
}

export interface SpaceInput {
  space: string;
  settings: SpaceSettings;
  anchors?: InboundAnchor[];
  /** The stray log's persisted snapshot (an earlier process, or this space before it crashed): it resumes from it. */
  strays?: unknown;
}

export interface TurnRecord {
  /** Where the turn's thread hangs; null when it has none. */
  anchor: ThreadAnchor | null;
  dm: boolean;
  restarts: number;
  /** `live` while the turn actor runs; `crashed` once restarts ran out (its entries go top-level). */
  mode: 'live' | 'crashed';
  /** The slot its actor runs in (child id `turn:<slot>`); null once it crashed for good (no actor). */
  slot: number | null;
  /** Messages of people the turn adopted (`messages_adopted`): no other turn may adopt them. */
  adopted?: string[];
}

/** A turn handed to `space.restore`: the space gives it a slot like a new one. */
export type RestoredTurnRecord = Omit<TurnRecord, 'slot'>;

export interface SpaceDeadLetter {
  at: number;
  turnId?: string;
  reason: string;
  text: string;
}

export interface SpaceContext {
  space: string;
  settings: SpaceSettings;
  anchors: InboundAnchor[];
  turns: Record<string, TurnRecord>;
  /** Slot → the turn whose actor is `turn:<slot>`; null while the slot is free. */
  turnSlots: (string | null)[];
  /** Slot → the purpose of the delivery `delivery:<slot>`; null while the slot is free. */
  deliverySlots: (string | null)[];
  /** `presence:<slot>` children by slot: the turn id each serves, null when free (reused like turn slots). */
  presenceSlots: (string | null)[];
  /** Deliveries started so far (a count: their children reuse slots). */
  deliveries: number;
  warnings: string[];
  deadLetters: SpaceDeadLetter[];
  /** The stray log's persisted snapshot it starts from; null for a fresh one. */
  restoredStrays: unknown;
}

/** How a turn ended (`turn_ended.outcome`). */
export type TurnOutcome = RunEventOf<'turn_ended'>['outcome'];

/** A turn to restore: its record and its persisted snapshot. */
export interface RestoredTurn {
  turnId: string;
  record: RestoredTurnRecord;
  snapshot: unknown;
}

/** A run event for a space, by how the space handles it (`spaceEventOf`). */
export type SpaceRunEvent =
  /** A person's message: kept as an anchor turns may start under. */
  | { type: 'space.inbound'; event: RunEventOf<'inbound'> }
  | { type: 'space.turnStarted'; event: RunEventOf<'turn_started'> }
  | { type: 'space.turnEnded'; event: RunEventOf<'turn_ended'> }
  /** Later messages of people folded into a live turn (issue 26). */
  | { type: 'space.adopted'; event: RunEventOf<'messages_adopted'> }
  /** Any other event: routed to a live turn's log, the stray log, a card or a top-level answer. */
  | { type: 'space.entry'; event: RunEvent };

export type SpaceEvent =
  | SpaceRunEvent
  /**
   * Several events of one batch (one `POST /v1/events` body), in order: the
   * log entries of live turns at its head go to their turns in one
   * `turn.log` per turn; the first other event is handled as its own typed
   * event and the rest as a batch again, so the outcome is that of one
   * event at a time.
   */
  | { type: 'space.events'; events: RunEvent[] }
  /**
   * Restore turns persisted by an earlier process (or a crashed space); the
   * stray log re-arms its timers; `answers` are the deliveries of answer
   * parts not posted yet, started again in order.
   */
  | { type: 'space.restore'; turns: RestoredTurn[]; answers?: DeliveryInput[] }
  /** Per-space settings changed at run time (the HTTP API): applies to events from now on. */
  | { type: 'space.configure'; threadsDisabled?: boolean; dm?: boolean }
  /** The run-time settings cleared: the space's routing is the config's again. */
  | { type: 'space.reset'; routing: SpaceRoutingConfig }
  /** Someone decided a card (src/actions/clicks.ts): edit its message to show `card` (no buttons, the outcome). */
  | { type: 'space.cardOutcome'; messageId: string; threadId?: string; card: FrameCard }
  /** The host writes through its channel adapter (src/adapter/): one must-land post, edit or reaction, its output told by `ticket`. */
  | { type: 'space.hostWrite'; delivery: HostDelivery }
  /** A person pressed Stop on a live turn's log (src/actions/clicks.ts). */
  | { type: 'space.stopTurn'; turnId: string; user: ActionUser }
  /** A shutdown flush: these live turns send their pending frame, and the stray log its lines when `strays`. */
  | { type: 'space.flush'; turnIds: string[]; strays: boolean }
  | { type: `xstate.done.actor.${string}`; output?: unknown }
  | { type: `xstate.error.actor.${string}`; error?: unknown };

/** A host's write through the channel adapter: a delivery with a ticket its caller waits on. */
export type HostDelivery = Pick<
  DeliveryInput,
  'request' | 'purpose' | 'edit' | 'reaction' | 'card' | 'continuation'
> & {
  ticket: string;
};

/** The typed event a space takes a run event as. */
export function spaceEventOf(event: RunEvent): SpaceRunEvent {
  switch (event.type) {
    case 'inbound':
      return { type: 'space.inbound', event };
    case 'turn_started':
      return { type: 'space.turnStarted', event };
    case 'turn_ended':
      return { type: 'space.turnEnded', event };
    case 'messages_adopted':
      return { type: 'space.adopted', event };
    default:
      return { type: 'space.entry', event };
  }
}
