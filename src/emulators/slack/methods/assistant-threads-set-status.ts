/**
 * `assistant.threads.setStatus` (https://docs.slack.dev/reference/methods/assistant.threads.setStatus):
 * "<App> <status>" under a thread until the app replies in it, the status is
 * set to `""`, or two minutes pass. A workspace without the feature answers
 * the error it was started with (`assistantStatus`), every time.
 */
import { stringArg } from '../args.js';
import { missingArgument, slackError } from '../errors.js';
import { channelKind, TS_PATTERN } from '../ids.js';
import type { SlackEmulatorState, SlackMethod } from '../slack-call.js';
import { resolveThreadRoot } from '../threads.js';

/** Slack drops a status two minutes after it was set. */
export const STATUS_TTL_MS = 120_000;
/** "Up to 10 loading messages" rotate under the status. */
const MAX_LOADING_MESSAGES = 10;

const statusKey = (channel: string, root: string) => `${channel}\u0000${root}`;

/** The status a thread shows at `now` (undefined: none, cleared or expired). */
export function shownStatus(
  slack: SlackEmulatorState,
  channel: string,
  root: string,
  now: number,
): string | undefined {
  const entry = slack.statuses.get(statusKey(channel, root));
  return entry !== undefined && now - entry.setAt < STATUS_TTL_MS ? entry.status : undefined;
}

/** The app replied in the thread: Slack clears its status. */
export function clearStatus(slack: SlackEmulatorState, channel: string, root: string): void {
  slack.statuses.delete(statusKey(channel, root));
}

function loadingMessages(value: unknown): string[] | null | undefined {
  if (value === undefined) return undefined;
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return Array.isArray(list) && list.every((item) => typeof item === 'string') ? list : null;
}

export const assistantThreadsSetStatus: SlackMethod = (call) => {
  const { fields } = call.args;
  const channel = stringArg(fields, 'channel_id');
  const threadTs = stringArg(fields, 'thread_ts');
  const status = stringArg(fields, 'status');
  return {
    op: 'other',
    space: channel ?? null,
    thread: threadTs ?? null,
    details: { status: status ?? null },
    run() {
      if (call.slack.assistantStatus !== 'enabled') return slackError(call.slack.assistantStatus);
      if (channel === undefined || channel === '') return missingArgument('channel_id');
      if (threadTs === undefined || threadTs === '') return missingArgument('thread_ts');
      if (status === undefined) return missingArgument('status');
      if (channelKind(channel) === null) return slackError('channel_not_found');
      if (!TS_PATTERN.test(threadTs)) return slackError('invalid_thread_ts');
      const loading = loadingMessages(fields.loading_messages);
      if (loading === null || (loading !== undefined && loading.length > MAX_LOADING_MESSAGES)) {
        return slackError('invalid_arguments', {
          response_metadata: {
            messages: [`[ERROR] loading_messages must be a list of at most ${MAX_LOADING_MESSAGES} strings`],
          },
        });
      }
      const root = resolveThreadRoot(call.ctx.store, channel, threadTs);
      if (root === null) return slackError('thread_not_found');
      // What the thread still showed: null once it expired or the app replied (a refresh came too late).
      const previous = shownStatus(call.slack, channel, root, call.ctx.now()) ?? null;
      if (status === '') clearStatus(call.slack, channel, root);
      else call.slack.statuses.set(statusKey(channel, root), { status, setAt: call.ctx.now() });
      return {
        status: 200,
        body: { ok: true },
        record: {
          thread: root,
          notifies: false,
          mentions: [],
          details: { status, cleared: status === '', previous },
        },
      };
    },
  };
};
