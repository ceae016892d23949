/**
 * `reactions.add`: one emoji per app per message (`already_reacted` the
 * second time). A reaction notifies no one here (only a new message
 * notifies).
 */
import { stringArg } from '../args.js';
import { slackError } from '../errors.js';
import { TS_PATTERN } from '../ids.js';
import { liveMessage, readChannel, type SlackMethod } from '../slack-call.js';

/** An emoji name without colons, optionally with a skin tone: `thumbsup`, `+1`, `wave::skin-tone-3`. */
const EMOJI_NAME = /^[a-z0-9_+'-]+(?:::skin-tone-[2-6])?$/;

export const reactionsAdd: SlackMethod = (call) => {
  const { fields } = call.args;
  const ts = stringArg(fields, 'timestamp');
  const name = stringArg(fields, 'name');
  return {
    op: 'reaction',
    space: stringArg(fields, 'channel') ?? null,
    messageId: ts ?? null,
    details: { name: name ?? null },
    run(app) {
      // Slack names a missing target `no_item_specified`, a missing or bad emoji `invalid_name`.
      if (stringArg(fields, 'channel') === undefined || ts === undefined || ts === '') {
        return slackError('no_item_specified');
      }
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      if (!TS_PATTERN.test(ts)) return slackError('bad_timestamp');
      if (name === undefined || !EMOJI_NAME.test(name)) return slackError('invalid_name');
      const message = liveMessage(call, target.channel, ts);
      if (!message) return slackError('message_not_found');
      const reactions = call.slack.reactions.get(ts) ?? new Set<string>();
      const key = `${app.userId}:${name}`;
      if (reactions.has(key)) return slackError('already_reacted');
      reactions.add(key);
      call.slack.reactions.set(ts, reactions);
      return {
        status: 200,
        body: { ok: true },
        record: { thread: message.thread, notifies: false, mentions: [], details: { name } },
      };
    },
  };
};
