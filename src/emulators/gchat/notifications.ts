/**
 * Would a new Google Chat message buzz a person? Chat notifies for new
 * messages, never for edits; who hears of it depends on where it lands:
 * - a DM: the person in it;
 * - a new top-level message (a new thread) in a space: the space's members;
 * - a reply in a thread: the thread's participants (people who posted in
 *   it). A thread nobody has posted in notifies no one.
 * `createMessageNotificationOptions.notificationType` overrides this:
 * NOTIFICATION_TYPE_SILENT notifies no one, NOTIFICATION_TYPE_FORCE_NOTIFY
 * always notifies.
 */

export const NOTIFICATION_TYPES = [
  'NOTIFICATION_TYPE_UNSPECIFIED',
  'NOTIFICATION_TYPE_NONE',
  'NOTIFICATION_TYPE_FORCE_NOTIFY',
  'NOTIFICATION_TYPE_SILENT',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export type Audience = 'direct-message' | 'space' | 'thread';

export interface NewMessageNotice {
  notifies: boolean;
  audience: Audience;
  /** For a thread reply: the people it notifies (empty when silent). */
  notified?: string[];
}

export function noticeForNewMessage(where: {
  dm: boolean;
  threadReply: boolean;
  participants: readonly string[];
  notificationType: NotificationType | undefined;
}): NewMessageNotice {
  const audience: Audience = where.dm ? 'direct-message' : where.threadReply ? 'thread' : 'space';
  const silent = where.notificationType === 'NOTIFICATION_TYPE_SILENT';
  const forced = where.notificationType === 'NOTIFICATION_TYPE_FORCE_NOTIFY';
  const reachesSomeone = audience !== 'thread' || where.participants.length > 0;
  return {
    notifies: !silent && (forced || reachesSomeone),
    audience,
    ...(audience === 'thread' ? { notified: silent ? [] : [...where.participants] } : {}),
  };
}
