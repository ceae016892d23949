/**
 * `reactions.add` and `reactions.remove`: one emoji per app per message
 * (`already_reacted` the second time, `no_reaction` removing one that is not
 * there). A reaction notifies no one (only a new message notifies). The
 * message keeps it as a person sees it: the unicode character for the
 * names Slack knows here (`eyes` → 👀), the `:name:` otherwise.
 */
import { addReaction, removeReaction } from '../../core/index.js';
import { stringArg } from '../args.js';
import { slackError } from '../errors.js';
import { TS_PATTERN } from '../ids.js';
import { liveMessage, readChannel, type SlackMethod } from '../slack-call.js';

/** An emoji name without colons, optionally with a skin tone: `thumbsup`, `+1`, `wave::skin-tone-3`. */
const EMOJI_NAME = /^[a-z0-9_+'-]+(?:::skin-tone-[2-6])?$/;

/** The unicode characters of the emoji names a person sees most (Slack's own names). */
const UNICODE_OF: Readonly<Record<string, string>> = {
  eyes: '👀',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  black_square_for_stop: '⏹️',
  '+1': '👍',
  thumbsup: '👍',
  '-1': '👎',
  thumbsdown: '👎',
  hourglass_flowing_sand: '⏳',
  warning: '⚠️',
  link: '🔗',
  tada: '🎉',
};

/** How a person sees a reaction named `name`. */
export const slackEmojiShown = (name: string): string => UNICODE_OF[name] ?? `:${name}:`;

function reactionMethod(kind: 'add' | 'remove'): SlackMethod {
  return (call) => {
    const { fields } = call.args;
    const ts = stringArg(fields, 'timestamp');
    const name = stringArg(fields, 'name');
    return {
      op: 'reaction',
      space: stringArg(fields, 'channel') ?? null,
      messageId: ts ?? null,
      details: { name: name ?? null, reaction: kind },
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
        const shown = { emoji: slackEmojiShown(name), user: app.userId };
        if (kind === 'add') {
          if (reactions.has(key)) return slackError('already_reacted');
          reactions.add(key);
          addReaction(message, shown);
        } else {
          if (!reactions.has(key)) return slackError('no_reaction');
          reactions.delete(key);
          removeReaction(message, shown);
        }
        call.slack.reactions.set(ts, reactions);
        return {
          status: 200,
          body: { ok: true },
          record: {
            thread: message.thread,
            notifies: false,
            mentions: [],
            details: { name, reaction: kind },
          },
        };
      },
    };
  };
}

export const reactionsAdd = reactionMethod('add');
export const reactionsRemove = reactionMethod('remove');
