/**
 * People → the agent host (docs/http-api.md, "Actions").
 *
 * Two shapes cross this seam:
 * - an {@link IntakeEvent} is what a platform intake (the Slack events
 *   endpoint, the Google Chat events endpoint, the Discord gateway) hands the
 *   runtime once it has verified the platform's request: a person posted, or
 *   a person pressed a button on a message turnlog made;
 * - an {@link Action} is what the host receives, at least once and in order
 *   per space, from the outbox in the store (`GET /v1/actions`, the webhook,
 *   the client's `actions()` iterator).
 */

/** Who did it, as the platform names them. */
export interface ActionUser {
  /** The platform's user id (`users/123`, `U0123ABCD`, a Discord snowflake). */
  id: string;
  /** Display name, when the platform gives one. */
  name?: string;
}

/** A person posted a message in a space turnlog serves. */
export interface MessageIntake {
  kind: 'message';
  /** Platform-prefixed space (`slack:C0123ABCD`). */
  space: string;
  /** The platform's id of the message (the anchor a turn's thread hangs off). */
  messageId: string;
  /** The thread it was posted in, when it was a reply. */
  threadId?: string;
  text: string;
  /** Posted in a direct message. */
  dm: boolean;
  user: ActionUser;
  /** Epoch ms the platform says it happened (or receipt time). */
  at: number;
  /**
   * The platform's id for this delivery (Slack `event_id`, the Chat message
   * name, the Discord message id): a redelivery with a key already seen is
   * ignored.
   */
  dedupeKey: string;
}

/** A person pressed a button on a message turnlog posted (a card, or Stop on a log). */
export interface ClickIntake {
  kind: 'click';
  space: string;
  /** The message the button is on. */
  messageId: string;
  threadId?: string;
  /** The button's action id as rendered from `FrameAction.id` (`approve`, `reject`, `stop`, an option's id). */
  action: string;
  user: ActionUser;
  at: number;
  /** The platform's id of the interaction (Slack trigger/action ts, Discord interaction id). */
  dedupeKey: string;
}

export type IntakeEvent = MessageIntake | ClickIntake;

/**
 * What the runtime answers an intake, for the platform's reply to the person
 * (Slack `response_url`/ephemeral, a Google Chat action response, a Discord
 * interaction response), within the platform's deadline (Discord: 3 s).
 */
export interface IntakeResult {
  /**
   * - `accepted`: recorded (an action is in the outbox);
   * - `duplicate`: a redelivery of something already recorded;
   * - `already-decided`: a click on a card someone already decided (the text says by whom);
   * - `unknown`: not a message or button turnlog knows (the text says why);
   * - `refused`: a press that counts for nothing — by someone who may not
   *   decide this turn, or on a card of a turn that has ended (the text says which).
   */
  status: 'accepted' | 'duplicate' | 'already-decided' | 'unknown' | 'refused';
  /** A short line for the person who clicked (shown only to them where the platform can). */
  text?: string;
  /** The action recorded, when one was. */
  action?: Action;
}

/** Where verified platform events go: the runtime implements it. */
export interface IntakeSink {
  receive(event: IntakeEvent): Promise<IntakeResult>;
}

interface ActionBase {
  /** Unique, stable id (also usable as `rootRef` for a `message`). */
  id: string;
  /** Opaque, ordered position in the outbox: `GET /v1/actions?after=<cursor>`. */
  cursor: string;
  space: string;
  at: number;
  user: ActionUser;
}

export type Action =
  | (ActionBase & { type: 'message'; messageId: string; threadId?: string; text: string; dm: boolean })
  | (ActionBase & { type: 'decision'; turnId: string; requestId: string; decision: 'approved' | 'rejected' })
  | (ActionBase & { type: 'answer'; turnId: string; questionId: string; value: string; label: string })
  | (ActionBase & { type: 'stop'; turnId: string });

/** An action before the outbox gives it an id and a cursor. */
export type NewAction = Action extends infer A
  ? A extends Action
    ? Omit<A, 'id' | 'cursor'> & { id?: string }
    : never
  : never;

/**
 * What a click on a button turnlog rendered comes to, decided where the card
 * lives (src/actions/clicks.ts): the first click on a card wins and becomes
 * an action for the outbox; later ones are told who decided.
 */
export type ClickResolution =
  | { status: 'accepted'; action: NewAction; text?: string }
  | { status: 'already-decided' | 'unknown' | 'refused'; text: string };

/** Resolves a click to the action it means (and edits the card / log to show it). */
export type ClickResolver = (click: ClickIntake) => Promise<ClickResolution>;
