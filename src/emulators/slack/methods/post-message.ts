/**
 * `chat.postMessage`: text and/or blocks, top level or a thread reply
 * (`thread_ts`), answering `{ok, channel, ts, message}`.
 *
 * DMs: Slack accepts `thread_ts` in an IM, so the emulator does too (the
 * call is recorded with `details.dm`); with `strict` it refuses with
 * `restricted_action_non_threadable_channel`. A `thread_ts` naming no
 * message is accepted as Slack does (the reply lands in a thread no one
 * sees, recorded with `details.orphanedThread`); with `strict` it is
 * `thread_not_found`. A malformed `thread_ts` is `invalid_thread_ts`.
 */
import { booleanArg, stringArg } from '../args.js';
import { readContent } from '../content.js';
import { slackError } from '../errors.js';
import { TS_PATTERN } from '../ids.js';
import { readMetadata } from '../metadata.js';
import { channelRefusal, messagePayload, readChannel, type SlackMethod } from '../slack-call.js';
import { notifiesOnPost, resolveThreadRoot, threadParticipants } from '../threads.js';
import { clearStatus } from './assistant-threads-set-status.js';

export const postMessage: SlackMethod = (call) => {
  const { fields } = call.args;
  const threadTs = stringArg(fields, 'thread_ts');
  return {
    op: 'create',
    space: stringArg(fields, 'channel') ?? null,
    thread: threadTs ?? null,
    text: stringArg(fields, 'text') ?? null,
    run(app) {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      const { channel, kind } = target;
      const refused = channelRefusal(call.slack, channel);
      if (refused) return refused;
      const read = readContent(fields, call.slack.unsupportedBlocks);
      if (!read.ok) return read.reply;
      const { content } = read;
      const meta = readMetadata(fields);
      if (!meta.ok) return meta.reply;

      let threadRoot: string | null = null;
      let orphanedThread = false;
      if (threadTs !== undefined) {
        if (!TS_PATTERN.test(threadTs)) return slackError('invalid_thread_ts');
        if (kind === 'im' && call.slack.strict) return slackError('restricted_action_non_threadable_channel');
        threadRoot = resolveThreadRoot(call.ctx.store, channel, threadTs);
        // A parent deleted with no reply left is gone with its thread (Slack keeps a "This message was deleted."
        // placeholder only while replies hang off it): a reply to it is refused. Unpublished; docs/emulators.md.
        if (threadRoot !== null && call.ctx.store.get(threadRoot)?.deleted === true) {
          const root = threadRoot;
          const replies = call.ctx.store.inSpace(channel).filter((m) => m.thread === root && !m.deleted);
          if (replies.length === 0) return slackError('thread_not_found');
        }
        if (threadRoot === null) {
          if (call.slack.strict) return slackError('thread_not_found');
          threadRoot = threadTs;
          orphanedThread = true;
        }
      }

      const ts = call.slack.ts.next(call.ctx.now());
      const stored = call.ctx.store.create({
        id: ts,
        space: channel,
        thread: threadRoot,
        text: content.visibleText,
        author: { kind: 'app', id: app.userId },
        data: {
          ...(content.blocks ? { blocks: content.blocks } : {}),
          buttons: content.buttons,
          mentions: content.mentions,
          ...(meta.metadata === undefined ? {} : { metadata: meta.metadata }),
        },
      });
      // The app's reply ends the "is working" status under that thread, as on Slack.
      if (threadRoot !== null) clearStatus(call.slack, channel, threadRoot);
      const broadcast = threadRoot !== null && booleanArg(fields, 'reply_broadcast');
      const participants = threadRoot === null ? [] : threadParticipants(call.slack, threadRoot);
      const rootAuthor = threadRoot === null ? undefined : call.ctx.store.get(threadRoot)?.author.id;
      return {
        status: 200,
        body: {
          ok: true,
          channel,
          ts,
          message: {
            ...messagePayload(app, stored, content.text ?? ''),
            ...(rootAuthor === undefined ? {} : { parent_user_id: rootAuthor }),
          },
        },
        record: {
          messageId: ts,
          thread: threadRoot,
          text: content.visibleText,
          notifies: notifiesOnPost({ kind, threadRoot, broadcast, participants, mentions: content.mentions }),
          mentions: content.mentions,
          details: {
            ...(threadTs === undefined ? {} : { thread_ts: threadTs, threadParticipants: participants }),
            ...(content.blocks ? { blocks: content.blocks.length } : {}),
            ...(content.buttons.length > 0 ? { buttons: content.buttons } : {}),
            ...(broadcast ? { reply_broadcast: true } : {}),
            ...(kind === 'im' ? { dm: true } : {}),
            ...(orphanedThread ? { orphanedThread: true } : {}),
            ...(meta.metadata === undefined ? {} : { metadata: meta.metadata }),
          },
        },
      };
    },
  };
};
