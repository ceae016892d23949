/** `chat.delete`: removes one of the app's own messages (`cant_delete_message` for anyone else's). */
import { stringArg } from '../args.js';
import { missingArgument, slackError } from '../errors.js';
import { liveMessage, readChannel, type SlackMethod } from '../slack-call.js';

export const chatDelete: SlackMethod = (call) => {
  const { fields } = call.args;
  const ts = stringArg(fields, 'ts');
  return {
    op: 'delete',
    space: stringArg(fields, 'channel') ?? null,
    messageId: ts ?? null,
    run(app) {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      if (ts === undefined || ts === '') return missingArgument('ts');
      const message = liveMessage(call, target.channel, ts);
      if (!message) return slackError('message_not_found');
      if (message.author.kind !== 'app' || message.author.id !== app.userId) {
        return slackError('cant_delete_message');
      }
      call.ctx.store.markDeleted(ts);
      return {
        status: 200,
        body: { ok: true, channel: target.channel, ts },
        record: { thread: message.thread, notifies: false, mentions: [] },
      };
    },
  };
};
