/**
 * `chat.update`: replaces a message's text and/or blocks. Only the app's
 * own messages (`cant_update_message` for a person's or another app's);
 * `message_not_found` once deleted. New blocks replace the old ones; text
 * without blocks removes them (as the method's docs describe). An edit
 * notifies no one, but a broad mention it adds is recorded in `mentions`
 * (whether Slack pings for it is unpublished: the record errs towards
 * "it pinged").
 */
import { stringArg } from '../args.js';
import { readContent } from '../content.js';
import { missingArgument, slackError } from '../errors.js';
import { readMetadata } from '../metadata.js';
import { channelRefusal, liveMessage, messagePayload, readChannel, type SlackMethod } from '../slack-call.js';

export const chatUpdate: SlackMethod = (call) => {
  const { fields } = call.args;
  const ts = stringArg(fields, 'ts');
  return {
    op: 'update',
    space: stringArg(fields, 'channel') ?? null,
    messageId: ts ?? null,
    text: stringArg(fields, 'text') ?? null,
    run(app) {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      const refused = channelRefusal(call.slack, target.channel);
      if (refused) return refused;
      if (ts === undefined || ts === '') return missingArgument('ts');
      const read = readContent(fields, call.slack.unsupportedBlocks);
      if (!read.ok) return read.reply;
      const { content } = read;
      const meta = readMetadata(fields);
      if (!meta.ok) return meta.reply;
      const message = liveMessage(call, target.channel, ts);
      if (!message) return slackError('message_not_found');
      if (message.author.kind !== 'app' || message.author.id !== app.userId) {
        return slackError('cant_update_message');
      }

      const before = new Set((message.data.mentions as string[] | undefined) ?? []);
      const added = content.mentions.filter((mention) => !before.has(mention));
      const edited = call.ctx.store.edit(ts, content.visibleText, {
        blocks: content.blocks,
        buttons: content.buttons,
        mentions: content.mentions,
        // Metadata given replaces the message's; without it the message keeps what it had.
        ...(meta.metadata === undefined ? {} : { metadata: meta.metadata }),
      });
      return {
        status: 200,
        body: {
          ok: true,
          channel: target.channel,
          ts,
          text: content.text ?? '',
          message: messagePayload(app, edited, content.text ?? ''),
        },
        record: {
          thread: edited.thread,
          text: content.visibleText,
          notifies: false,
          mentions: added,
          details: {
            edits: edited.edits,
            ...(content.blocks ? { blocks: content.blocks.length } : {}),
            ...(content.buttons.length > 0 ? { buttons: content.buttons } : {}),
          },
        },
      };
    },
  };
};
