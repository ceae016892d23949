/**
 * Google Chat's message-write quotas (docs/emulators.md, the Chat API usage
 * limits page): 60 writes per minute per space, shared by every app in it,
 * and 3000 message writes per minute per project (one project = one app
 * credential here). "Writes" are spaces.messages.create, patch/update and
 * delete, which share each bucket, hence `op: '*'`; reads are not counted
 * (their routes opt out). Newer Google docs state the per-space quota as
 * 1 write per second; the per-minute form is kept, as docs/http-api.md says.
 */
import type { LimitRule } from '../types.js';

export const GCHAT_DEFAULT_LIMITS: readonly LimitRule[] = Object.freeze([
  { op: '*', scope: 'space', limit: 60, windowS: 60 },
  { op: '*', scope: 'app', limit: 3000, windowS: 60 },
]);
