/**
 * What Slack sends, read (https://docs.slack.dev/reference/events/message,
 * https://docs.slack.dev/reference/interaction-payloads/block_actions-payload):
 * a person's post as a MessageIntake, a button press as a ClickIntake, a body
 * turnlog does not take named with why (and kept), and what the person who
 * pressed is told when the press did not become an action.
 */
import type { BlockAction } from '@slack/bolt';
import type { ClickIntake, IntakeResult, MessageIntake } from '../../actions/types.js';
import { redactRawText } from '../../events/scrub.js';
import type { IntakeContext } from '../../registry/descriptor.js';
import { SLACK_CHANNEL_PATTERN } from './surface.js';

/** Message subtypes a person's post can have (https://docs.slack.dev/reference/events/message#subtypes). */
const PERSON_SUBTYPES: ReadonlySet<string | undefined> = new Set([undefined, 'thread_broadcast']);

/** A Slack `ts` (`1700000000.000100`) as epoch ms. */
function tsToMs(ts: unknown, fallback: number): number {
  const seconds = typeof ts === 'string' ? Number.parseFloat(ts) : Number.NaN;
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : fallback;
}

export interface MessageEventFields {
  type?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  channel?: string;
  channel_type?: string;
  ts?: string;
  thread_ts?: string;
}

/**
 * The person's post as a MessageIntake, or why it is not one (a bot's or the
 * app's own message, an edit, a join …: those are not people talking to the agent).
 */
export function messageIntakeOf(
  event: MessageEventFields,
  botUserId: string | undefined,
  now: number,
): MessageIntake | string {
  if (event.type !== 'message') return `not a message event (${String(event.type)})`;
  if (!PERSON_SUBTYPES.has(event.subtype)) return `a ${event.subtype} message, not a person's post`;
  if (event.bot_id !== undefined || event.user === undefined) return "a bot's message";
  if (botUserId !== undefined && event.user === botUserId) return "the app's own message";
  if (event.channel === undefined || !SLACK_CHANNEL_PATTERN.test(event.channel))
    return `no Slack channel id (${String(event.channel)})`;
  if (event.ts === undefined) return 'a message without a ts';
  return {
    kind: 'message',
    space: `slack:${event.channel}`,
    messageId: event.ts,
    ...(event.thread_ts === undefined ? {} : { threadId: event.thread_ts }),
    text: event.text ?? '',
    dm: event.channel_type === 'im',
    user: { id: event.user },
    at: tsToMs(event.ts, now),
    // Channel + ts names the message: Slack may deliver one message under two event_ids.
    dedupeKey: `message:${event.channel}:${event.ts}`,
  };
}

/** A button press on a message as a ClickIntake, or why it is not one. */
export function clickIntakeOf(body: BlockAction, now: number): ClickIntake | string {
  const action = body.actions[0];
  if (action === undefined) return 'a block_actions payload without an action';
  if (body.container?.type !== 'message' || typeof body.container.message_ts !== 'string')
    return 'not a button on a message';
  const channel = body.channel?.id ?? body.container.channel_id;
  if (typeof channel !== 'string' || !SLACK_CHANNEL_PATTERN.test(channel))
    return `no Slack channel id (${String(channel)})`;
  const threadTs = body.message?.thread_ts ?? body.container.thread_ts;
  const name = body.user.name ?? body.user.username;
  return {
    kind: 'click',
    space: `slack:${channel}`,
    messageId: body.container.message_ts,
    ...(typeof threadTs === 'string' ? { threadId: threadTs } : {}),
    action: action.action_id,
    user: { id: body.user.id, ...(name ? { name } : {}) },
    at: tsToMs(action.action_ts, now),
    dedupeKey: `${action.action_ts}:${body.user.id}`,
  };
}

/** What the person who clicked is told when the click did not become an action. */
export function replyFor(result: IntakeResult): string | undefined {
  if (result.status === 'accepted') return undefined;
  if (result.text !== undefined && result.text !== '') return result.text;
  return result.status === 'duplicate'
    ? 'This was already received.'
    : result.status === 'already-decided'
      ? 'Someone already decided this.'
      : 'turnlog does not know this button.';
}

/** Keeps what Slack sent that turnlog could not take (IntakeContext.deadLetter: redacted and stored by serve). */
export function keepSlack(
  context: Pick<IntakeContext, 'deadLetter' | 'logger'>,
  reason: string,
  body: unknown,
): void {
  // The reason may quote what was sent (an event type, an error): redacted before it is logged.
  context.logger.warn('slack: kept a request turnlog could not take', { reason: redactRawText(reason) });
  context.deadLetter?.(reason, typeof body === 'string' ? body : JSON.stringify(body));
}

/** Interaction payload types (https://docs.slack.dev/reference/interaction-payloads) turnlog does not handle. */
const OTHER_INTERACTIONS: ReadonlySet<unknown> = new Set([
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'block_suggestion',
  'interactive_message',
  'dialog_submission',
  'dialog_cancellation',
  'workflow_step_edit',
]);

/**
 * Why a verified body is not something turnlog takes (a message event, a
 * block_actions interaction), or undefined when it is: an event the app is
 * subscribed to but turnlog does not handle, a slash command, a modal …
 */
export function slackBodyProblem(body: Record<string, unknown>): string | undefined {
  const type = body.type;
  if (type === 'block_actions') return undefined;
  if (type === 'event_callback') {
    const event = body.event;
    const eventType =
      typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
    if (eventType === 'message') return undefined;
    return `a ${typeof eventType === 'string' ? eventType : 'typeless'} event: turnlog takes only message events (unsubscribe the others under Event Subscriptions)`;
  }
  if (typeof body.command === 'string')
    return `the slash command ${body.command}: turnlog registers no slash commands`;
  if (OTHER_INTERACTIONS.has(type))
    return `a ${String(type)} interaction: turnlog takes only block_actions (buttons on its own messages)`;
  return `a body of type ${JSON.stringify(type ?? null)}: not an Events API event or an interaction turnlog takes`;
}

/** JSON (Events API) or a form with a JSON `payload` (interactivity); a form without one is kept as fields. */
export function parseSlackBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    if (payload !== null) {
      const parsed = JSON.parse(payload) as unknown;
      if (typeof parsed !== 'object' || parsed === null) throw new Error('payload is not a JSON object');
      return parsed as Record<string, unknown>;
    }
    return Object.fromEntries(form);
  }
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('body is not a JSON object');
  return parsed as Record<string, unknown>;
}
