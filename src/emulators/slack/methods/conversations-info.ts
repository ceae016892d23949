/**
 * `conversations.info`: the channel's kind, which is what turnlog asks it
 * for (`is_im` → a DM: no thread-log). Every well-formed id exists.
 */
import { stringArg } from '../args.js';
import { DEFAULT_PERSON_ID } from '../ids.js';
import { readChannel, type SlackMethod } from '../slack-call.js';

/** A fixed creation time: the emulator has no channel directory to remember one in. */
const CREATED = 1_700_000_000;

export const conversationsInfo: SlackMethod = (call) => {
  const { fields } = call.args;
  return {
    op: 'other',
    space: stringArg(fields, 'channel') ?? null,
    run() {
      const target = readChannel(fields);
      if (!target.ok) return target.reply;
      const { channel, kind } = target;
      const common = { id: channel, created: CREATED, is_archived: false, is_org_shared: false };
      const conversation =
        kind === 'im'
          ? {
              ...common,
              is_channel: false,
              is_group: false,
              is_im: true,
              is_mpim: false,
              user: DEFAULT_PERSON_ID,
            }
          : {
              ...common,
              name: channel.toLowerCase(),
              is_channel: kind === 'public',
              is_group: kind === 'private',
              is_im: false,
              is_mpim: false,
              is_private: kind === 'private',
              is_general: false,
              is_member: true,
            };
      return { status: 200, body: { ok: true, channel: conversation } };
    },
  };
};
