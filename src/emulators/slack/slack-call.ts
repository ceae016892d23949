/**
 * What every Slack method sees: the call's arguments, the shared store and
 * clock, and the Slack-only state (timestamps, thread participants,
 * reactions). A method describes the call (op, channel, target) for the
 * record, faults and limits, and `run`s it for an authenticated app.
 */
import type { CallNotes, HandlerContext, PlatformReply, StoredMessage } from '../core/index.js';
import type { CallOp } from '../types.js';
import type { SlackArgs } from './args.js';
import { stringArg } from './args.js';
import { missingArgument, slackError } from './errors.js';
import { type ChannelKind, channelKind, type SlackApp, TEAM_ID, type TsSource } from './ids.js';
import type { SlackSocketMode } from './socket-mode.js';

export interface SlackEmulatorState {
  /** Refuse what Slack tolerates but turnlog must never do (see `startSlackEmulator`). */
  readonly strict: boolean;
  readonly ts: TsSource;
  /** Thread root `ts` → the people (user ids) who posted in that thread, root author included. */
  readonly threadPeople: Map<string, Set<string>>;
  /** Message `ts` → the reactions on it, as `userId:name`. */
  readonly reactions: Map<string, Set<string>>;
  /** `enabled`, or the error every `assistant.threads.setStatus` answers (a workspace without the feature). */
  readonly assistantStatus: AssistantStatusSupport;
  /** Channels archived (`is_archived`) and channels the app is not in (`not_in_channel`). */
  readonly archived: ReadonlySet<string>;
  readonly notMember: ReadonlySet<string>;
  /** Block types this workspace refuses with `invalid_blocks` (a workspace without a newer block, e.g. `plan`). */
  readonly unsupportedBlocks: ReadonlySet<string>;
  /** `channel\0root ts` → the assistant status shown under that thread and when it was set. */
  readonly statuses: Map<string, { status: string; setAt: number }>;
  /** Socket Mode: `apps.connections.open` hands out its WebSocket URLs. */
  readonly socketMode: Pick<SlackSocketMode, 'open'>;
}

/** How a workspace answers `assistant.threads.setStatus`. */
export type AssistantStatusSupport =
  | 'enabled'
  | 'missing_scope'
  | 'not_allowed'
  | 'method_deprecated'
  | 'feature_not_enabled';

export interface SlackCall {
  args: SlackArgs;
  ctx: HandlerContext;
  slack: SlackEmulatorState;
}

export interface SlackMethodRoute extends CallNotes {
  op: CallOp;
  space: string | null;
  /** Runs the method for the app the token speaks for (the handler answers `not_authed` without one). */
  run(app: SlackApp): PlatformReply;
}

export type SlackMethod = (call: SlackCall) => SlackMethodRoute;

/** The `channel` argument, or the error Slack gives for it (missing → invalid_arguments, unknown → channel_not_found). */
export function readChannel(
  fields: Record<string, unknown>,
): { ok: true; channel: string; kind: ChannelKind } | { ok: false; reply: PlatformReply } {
  const channel = stringArg(fields, 'channel');
  if (channel === undefined || channel === '') return { ok: false, reply: missingArgument('channel') };
  const kind = channelKind(channel);
  if (kind === null) return { ok: false, reply: slackError('channel_not_found') };
  return { ok: true, channel, kind };
}

/** The live message `ts` in `channel`, or undefined (unknown, elsewhere or deleted → `message_not_found`). */
export function liveMessage(call: SlackCall, channel: string, ts: string): StoredMessage | undefined {
  const message = call.ctx.store.get(ts);
  return message && message.space === channel && !message.deleted ? message : undefined;
}

/** The message object Slack returns from chat.postMessage / chat.update. */
export function messagePayload(
  app: SlackApp,
  message: StoredMessage,
  fallbackText: string,
): Record<string, unknown> {
  const blocks = message.data.blocks;
  return {
    type: 'message',
    user: app.userId,
    bot_id: app.botId,
    app_id: app.appId,
    team: TEAM_ID,
    text: fallbackText,
    ts: message.id,
    ...(blocks === undefined ? {} : { blocks }),
    ...(message.thread === null ? {} : { thread_ts: message.thread }),
  };
}

/**
 * Why the app cannot write in `channel`, as Slack answers a post or an edit
 * there: `is_archived`, or `not_in_channel` for a channel it was never added to.
 */
export function channelRefusal(slack: SlackEmulatorState, channel: string): PlatformReply | undefined {
  if (slack.archived.has(channel)) return slackError('is_archived');
  if (slack.notMember.has(channel)) return slackError('not_in_channel');
  return undefined;
}
