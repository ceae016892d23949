/**
 * Slack threads: a reply names its parent's `ts` (`thread_ts`), and a
 * thread reply notifies the thread's participants, not the whole channel.
 */
import type { MessageStore } from '../core/index.js';
import type { ChannelKind } from './ids.js';
import type { SlackEmulatorState } from './slack-call.js';

/**
 * The thread a `thread_ts` lands in: the root's `ts`. A reply's `ts` counts
 * as its parent's (the docs say to "use its parent instead"); null when no
 * message in `channel` has that `ts`.
 */
export function resolveThreadRoot(store: MessageStore, channel: string, threadTs: string): string | null {
  const target = store.get(threadTs);
  if (!target || target.space !== channel) return null;
  return target.thread ?? target.id;
}

/** Notes that `person` posted in the thread rooted at `rootTs` (their own top-level message starts one). */
export function joinThread(slack: SlackEmulatorState, rootTs: string, person: string): void {
  const people = slack.threadPeople.get(rootTs);
  if (people) people.add(person);
  else slack.threadPeople.set(rootTs, new Set([person]));
}

export function threadParticipants(slack: SlackEmulatorState, rootTs: string): string[] {
  return [...(slack.threadPeople.get(rootTs) ?? [])];
}

export interface NewMessageAudience {
  kind: ChannelKind;
  /** null → top level. */
  threadRoot: string | null;
  /** `reply_broadcast`: the reply is also shown in the channel. */
  broadcast: boolean;
  participants: string[];
  mentions: string[];
}

/**
 * Does a new app message push a notification to a person? A top-level
 * message does (a new message notifies the conversation);
 * so does anything in a DM (its person is in every thread), a broadcast
 * reply, a reply in a thread a person posted in, and a fired broad mention.
 * A reply in a thread only the app has posted in reaches no one.
 */
export function notifiesOnPost(audience: NewMessageAudience): boolean {
  return (
    audience.threadRoot === null ||
    audience.kind === 'im' ||
    audience.broadcast ||
    audience.participants.length > 0 ||
    audience.mentions.length > 0
  );
}
