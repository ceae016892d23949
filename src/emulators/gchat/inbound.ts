/**
 * `POST /_emulator/inbound` for Google Chat: a person posts in a space, as a
 * new thread or (with `threadId`, a thread name) as a reply. Answers the
 * message name and its thread name, so a turn can be anchored on it. DMs
 * have no threads here, so a `threadId` in a DM is refused.
 */
import {
  EmulatorInputError,
  type HandlerContext,
  type InboundInput,
  type InboundResult,
} from '../core/index.js';
import type { GchatWorld } from './gchat-world.js';
import { postMessage } from './post-message.js';
import { parseSpaceName } from './resource-names.js';
import type { ThreadPlacement } from './threads.js';

/** The person who posts when the input names none. */
export const DEFAULT_INBOUND_USER = 'users/human';

export const userName = (user: string | undefined) =>
  user === undefined ? DEFAULT_INBOUND_USER : user.startsWith('users/') ? user : `users/${user}`;

export function postInbound(input: InboundInput, ctx: HandlerContext, world: GchatWorld): InboundResult {
  if (parseSpaceName(input.space) === null)
    throw new EmulatorInputError(
      `bad inbound space ${JSON.stringify(input.space)}: expected a Google Chat space name like spaces/AAAA (letters, digits, - and _)`,
    );
  const space = world.space(input.space, ctx.now());
  let placement: ThreadPlacement = { kind: 'new' };
  if (input.threadId !== undefined) {
    if (space.dm)
      throw new EmulatorInputError(
        `bad inbound threadId: ${space.name} is a direct message, and DMs have no threads in the emulator`,
      );
    const thread = ctx.store.getThread(input.threadId);
    if (!thread || thread.space !== space.name)
      throw new EmulatorInputError(
        `bad inbound threadId ${JSON.stringify(input.threadId)}: no such thread in ${space.name} (expected ${space.name}/threads/…)`,
      );
    placement = { kind: 'reply', thread };
  }
  const { stored, thread } = postMessage(ctx, world, {
    space: space.name,
    author: { kind: 'user', id: userName(input.user) },
    text: input.text,
    placement,
  });
  return { messageId: stored.id, threadId: thread.id };
}
