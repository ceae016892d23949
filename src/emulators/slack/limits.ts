/**
 * Slack's default rate limits, from the Web API rate-limit
 * page (docs.slack.dev/apis/web-api/rate-limits): limits apply "per API
 * method per workspace per app"; Tier 3 is "50+ per minute"; posting
 * messages is about "1 per second" per channel with "short bursts >1
 * allowed".
 */
import type { LimitRule } from '../types.js';

export const SLACK_DEFAULT_LIMITS: readonly LimitRule[] = Object.freeze([
  // chat.postMessage: 1/s per channel sustained, a burst of 5 (the burst size is unpublished: 5 is a choice).
  { op: 'create', scope: 'space', limit: 5, windowS: 5 },
  // chat.update: Tier 3, per app, shared by every message the app edits.
  { op: 'update', scope: 'app', limit: 50, windowS: 60 },
  // chat.delete and reactions.add: Tier 3.
  { op: 'delete', scope: 'app', limit: 50, windowS: 60 },
  { op: 'reaction', scope: 'app', limit: 50, windowS: 60 },
  // conversations.info, auth.test, assistant.threads.setStatus: Tier 3, each method its own bucket
  // (the handler keys `other` calls by method).
  { op: 'other', scope: 'app', limit: 50, windowS: 60 },
]);
