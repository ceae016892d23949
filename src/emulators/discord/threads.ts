/** Opening and reopening threads, shared by the bot's Start Thread route and a person's inbound message. */
import type { StoredMessage, StoredThread } from '../core/index.js';
import { ChannelType, type ResolvedChannel } from './channels.js';
import { type DiscordThreadData, type DiscordWorld, MessageFlag, messageData, threadData } from './world.js';

/** Discord's default `auto_archive_duration` (minutes) when the request gives none. */
export const DEFAULT_AUTO_ARCHIVE_MINUTES = 4320;

/** Starts the thread that hangs off `starter` (its id is the starter's id) and flags the starter HAS_THREAD. */
export function openThreadOn(
  world: DiscordWorld,
  starter: StoredMessage,
  opts: { ownerId: string; ownerIsPerson: boolean; name: string; autoArchiveDuration: number },
): StoredThread {
  const now = world.ctx.now();
  // People in the thread get its notifications: the starter's author and a person who opened it.
  const members = new Set<string>();
  if (starter.author.kind === 'user') members.add(starter.author.id);
  if (opts.ownerIsPerson) members.add(opts.ownerId);
  const data: DiscordThreadData = {
    name: opts.name,
    ownerId: opts.ownerId,
    archived: false,
    archiveTimestamp: now,
    autoArchiveDuration: opts.autoArchiveDuration,
    createdAt: now,
    members: [...members],
    messageCount: 0,
  };
  messageData(starter).flags |= MessageFlag.HasThread;
  return world.ctx.store.openThread({
    id: starter.id,
    space: starter.space,
    rootMessageId: starter.id,
    data: data as unknown as Record<string, unknown>,
  });
}

export const threadChannel = (thread: StoredThread): ResolvedChannel => ({
  type: ChannelType.PublicThread,
  id: thread.id,
  parentId: thread.space,
  thread,
});

/** Sets the archive flag (stamping `archive_timestamp` on a change); true when it changed. */
export function setArchived(world: DiscordWorld, thread: StoredThread, archived: boolean): boolean {
  const data = threadData(thread);
  if (data.archived === archived) return false;
  data.archived = archived;
  data.archiveTimestamp = world.ctx.now();
  return true;
}

/** A new message in a thread: its author joins (a person then gets the thread's notifications) and the count grows. */
export function countThreadMessage(thread: StoredThread, author: { id: string; isPerson: boolean }): void {
  const data = threadData(thread);
  data.messageCount += 1;
  if (author.isPerson && !data.members.includes(author.id)) data.members.push(author.id);
}
