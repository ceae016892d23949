/**
 * The ids a Slack emulator hands out and recognises: message timestamps
 * (`ts`), channel ids by kind, and one app identity per token.
 */
import { createHash } from 'node:crypto';

/** `1700000000.000100`: epoch seconds, a dot, six digits (microseconds on Slack). */
export const TS_PATTERN = /^\d{1,12}\.\d{6}$/;

/** The workspace every emulated call belongs to. */
export const TEAM_ID = 'T0EMULATED';
export const TEAM_NAME = 'Emulated Workspace';
export const TEAM_URL = 'https://emulated.slack.com/';

/** The person behind `/_emulator/inbound` when no `user` is given. */
export const DEFAULT_PERSON_ID = 'U0PERSON01';

/**
 * C… public channel, G… private channel (the legacy "group" id), D… direct
 * message (IM). Any id of that shape exists: the emulator has no channel
 * directory, so a test needs no setup to post somewhere.
 */
export type ChannelKind = 'public' | 'private' | 'im';

const CHANNEL_ID = /^([CGD])[A-Z0-9]{2,20}$/;
const KIND_BY_PREFIX: Record<string, ChannelKind> = { C: 'public', G: 'private', D: 'im' };

/** The channel's kind, or null when `id` is not a Slack channel id (→ `channel_not_found`). */
export function channelKind(id: string): ChannelKind | null {
  const prefix = CHANNEL_ID.exec(id)?.[1];
  return prefix === undefined ? null : KIND_BY_PREFIX[prefix]!;
}

/**
 * Hands out message timestamps: the clock's time in microseconds, bumped by
 * one when the clock has not moved, so every `ts` is unique and later ones
 * sort after earlier ones (Slack orders and addresses messages by `ts`).
 * Kept across `/_emulator/reset` so a stale `ts` never names a new message.
 */
export interface TsSource {
  next(nowMs: number): string;
}

export function createTsSource(): TsSource {
  let lastMicros = -1;
  return {
    next(nowMs) {
      lastMicros = Math.max(Math.floor(nowMs * 1000), lastMicros + 1);
      const seconds = Math.floor(lastMicros / 1_000_000);
      const micros = lastMicros % 1_000_000;
      return `${seconds}.${String(micros).padStart(6, '0')}`;
    },
  };
}

/** The bot a token speaks for: what `auth.test` answers and whose messages `chat.update` may edit. */
export interface SlackApp {
  /** Bot user id (`U…`): the author of the app's messages. */
  userId: string;
  /** `B…` */
  botId: string;
  /** `A…` */
  appId: string;
  userName: string;
}

/**
 * Every distinct token is a distinct app, with ids derived from the token
 * (stable across restarts), so a test can prove one app cannot edit
 * another's messages.
 */
export function appForToken(token: string): SlackApp {
  const suffix = createHash('sha256').update(token).digest('hex').slice(0, 10).toUpperCase();
  return {
    userId: `U${suffix}`,
    botId: `B${suffix}`,
    appId: `A${suffix}`,
    userName: `bot-${suffix.toLowerCase()}`,
  };
}
