/**
 * Which broad mentions in a message's content actually ping, given its
 * `allowed_mentions` (discord-api-docs, Message → Allowed Mentions Object):
 * absent, Discord parses every mention in the content; present, only what
 * it lists (`parse: []` pings no one).
 */
import { broadMentionsFor } from '../core/index.js';

export const ALLOWED_MENTION_TYPES = ['roles', 'users', 'everyone'] as const;
export type AllowedMentionType = (typeof ALLOWED_MENTION_TYPES)[number];

export interface AllowedMentions {
  parse?: AllowedMentionType[];
  roles?: string[];
  users?: string[];
  replied_user?: boolean;
}

const ROLE_MENTION = /^<@&(\d+)>$/;

/** `@everyone`, `@here` and `<@&role>` mentions that fire. */
export function firedBroadMentions(content: string, allowed: AllowedMentions | undefined): string[] {
  const mentions = broadMentionsFor('discord', content);
  if (allowed === undefined) return mentions;
  const parse = new Set(allowed.parse ?? []);
  const roles = new Set(allowed.roles ?? []);
  return mentions.filter((mention) => {
    const role = ROLE_MENTION.exec(mention)?.[1];
    if (role !== undefined) return parse.has('roles') || roles.has(role);
    return parse.has('everyone');
  });
}
