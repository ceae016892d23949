import type { LimitRule } from '../types.js';

/**
 * Discord's limits (https://discord.com/developers/docs/topics/rate-limits):
 * about 5 messages per 5 s per channel and, on its own route bucket, about
 * 5 edits per 5 s per channel (observed; unpublished), plus 50 requests/s
 * global. A thread is a channel
 * of its own, as on Discord.
 */
export const DISCORD_DEFAULT_LIMITS: readonly LimitRule[] = [
  { op: 'create', scope: 'space', limit: 5, windowS: 5 },
  { op: 'update', scope: 'space', limit: 5, windowS: 5 },
  { op: '*', scope: 'global', limit: 50, windowS: 1 },
];
