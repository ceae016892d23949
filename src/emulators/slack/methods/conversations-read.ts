/**
 * `conversations.replies` (https://docs.slack.dev/reference/methods/conversations.replies):
 * a thread's parent and its replies, oldest first; and `conversations.history`
 * (https://docs.slack.dev/reference/methods/conversations.history): a
 * channel's top-level messages (thread parents included), newest first. Both
 * take `limit` and `cursor` (a page's `response_metadata.next_cursor`),
 * `oldest`/`latest`/`inclusive`, and return each message's `metadata` only
 * with `include_all_metadata`. Deleted messages are left out.
 */
import type { StoredMessage } from '../../core/index.js';
import { booleanArg, stringArg } from '../args.js';
import { missingArgument, slackError } from '../errors.js';
import type { SlackApp } from '../ids.js';
import { TS_PATTERN } from '../ids.js';
import { readChannel, type SlackCall, type SlackMethod } from '../slack-call.js';

const DEFAULT_REPLIES_LIMIT = 1000;
const DEFAULT_HISTORY_LIMIT = 100;
const MAX_LIMIT = 1000;

function view(app: SlackApp, message: StoredMessage, withMetadata: boolean): Record<string, unknown> {
  const own = message.author.kind === 'app' && message.author.id === app.userId;
  const metadata = message.data.metadata;
  return {
    type: 'message',
    ts: message.id,
    text: message.text,
    ...(own ? { bot_id: app.botId, app_id: app.appId } : {}),
    user: message.author.id,
    ...(message.thread === null ? {} : { thread_ts: message.thread }),
    ...(message.data.blocks === undefined ? {} : { blocks: message.data.blocks }),
    ...(withMetadata && metadata !== undefined ? { metadata } : {}),
  };
}

/** The messages within `oldest`/`latest` (exclusive unless `inclusive`), one page of them from `cursor`. */
function page(
  app: SlackApp,
  call: SlackCall,
  messages: StoredMessage[],
  defaultLimit: number,
): { ok: true; body: Record<string, unknown> } | { ok: false; reply: ReturnType<typeof slackError> } {
  const { fields } = call.args;
  const inclusive = booleanArg(fields, 'inclusive');
  const oldest = Number(stringArg(fields, 'oldest') ?? '0');
  const latestArg = stringArg(fields, 'latest');
  const latest = latestArg === undefined ? Number.POSITIVE_INFINITY : Number(latestArg);
  const limitArg = Number(stringArg(fields, 'limit') ?? defaultLimit);
  const limit = Math.min(MAX_LIMIT, Number.isInteger(limitArg) && limitArg > 0 ? limitArg : defaultLimit);
  const cursor = stringArg(fields, 'cursor');
  const start =
    cursor === undefined || cursor === '' ? 0 : Number.parseInt(cursor.replace(/^next_ts:/, ''), 10);
  if (!Number.isInteger(start) || start < 0) return { ok: false, reply: slackError('invalid_cursor') };
  const within = messages.filter((m) => {
    const ts = Number(m.id);
    return (inclusive ? ts >= oldest : ts > oldest) && (inclusive ? ts <= latest : ts < latest);
  });
  const withMetadata = booleanArg(fields, 'include_all_metadata');
  const shown = within.slice(start, start + limit);
  const hasMore = start + limit < within.length;
  return {
    ok: true,
    body: {
      ok: true,
      messages: shown.map((m) => view(app, m, withMetadata)),
      has_more: hasMore,
      response_metadata: { next_cursor: hasMore ? `next_ts:${start + limit}` : '' },
    },
  };
}

const byTs = (a: StoredMessage, b: StoredMessage) => Number(a.id) - Number(b.id);

export const conversationsReplies: SlackMethod = (call) => {
  const { fields } = call.args;
  return {
    op: 'other',
    space: stringArg(fields, 'channel') ?? null,
    run(app) {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      const ts = stringArg(fields, 'ts');
      if (ts === undefined || ts === '') return missingArgument('ts');
      if (!TS_PATTERN.test(ts)) return slackError('invalid_ts');
      const { channel } = target;
      const message = call.ctx.store.get(ts);
      if (message === undefined || message.space !== channel) return slackError('thread_not_found');
      // `ts` may name a reply: the thread is its parent's.
      const root = message.thread ?? message.id;
      const thread = call.ctx.store
        .inSpace(channel)
        .filter((m) => !m.deleted && (m.id === root || m.thread === root))
        .sort(byTs);
      const read = page(app, call, thread, DEFAULT_REPLIES_LIMIT);
      return read.ok ? { status: 200, body: read.body } : read.reply;
    },
  };
};

export const conversationsHistory: SlackMethod = (call) => {
  const { fields } = call.args;
  return {
    op: 'other',
    space: stringArg(fields, 'channel') ?? null,
    run(app) {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      const top = call.ctx.store
        .inSpace(target.channel)
        .filter((m) => !m.deleted && m.thread === null)
        .sort((a, b) => byTs(b, a));
      const read = page(app, call, top, DEFAULT_HISTORY_LIMIT);
      return read.ok ? { status: 200, body: read.body } : read.reply;
    },
  };
};
