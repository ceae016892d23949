/**
 * Slack's own "working on it" line under a thread: `assistant.threads.setStatus`
 * (https://docs.slack.dev/reference/methods/assistant.threads.setStatus).
 * Slack shows "<App> <status>" until the app's next reply, an empty status,
 * or two minutes without a refresh. So the current tool is sent when it
 * changes, re-sent before the two minutes run out (at 90 s, as peers do),
 * and cleared at the end. A workspace that does not offer it (`missing_scope`,
 * `not_allowed`, `method_deprecated`, `feature_not_enabled`) answers that once
 * and is not asked again.
 *
 * `statusDecision` and `dueForRefresh` are the pure scheduler; the runtime
 * calls `setStatus` on each tool change and on its heartbeat, and books
 * every call that goes out (`due` says which) as one `status` write with the
 * budget (src/runtime/status-booking.ts).
 */
import { isSurfaceError } from '../../surfaces/surface.js';

/** Slack drops a status after two minutes without a message or a refresh. */
export const STATUS_EXPIRY_MS = 120_000;
/** Re-sent this long after the last send: well inside the expiry, even with a slow budget. */
export const STATUS_REFRESH_MS = 90_000;
/** Answers meaning "this workspace has no assistant status": remembered, never asked again. */
export const UNSUPPORTED_STATUS_CODES: ReadonlySet<string> = new Set([
  'missing_scope',
  'not_allowed',
  'method_deprecated',
  'feature_not_enabled',
]);

/** What a thread shows, as last sent. */
export interface ShownStatus {
  status: string;
  sentAt: number;
}

export type StatusDecision = 'send' | 'skip';

/**
 * Send or skip: a new status is sent; the same one again only once the
 * refresh is due; a clear only when something is shown.
 */
export function statusDecision(
  shown: ShownStatus | undefined,
  wanted: string,
  now: number,
  refreshMs: number = STATUS_REFRESH_MS,
): StatusDecision {
  if (wanted === '') return shown === undefined ? 'skip' : 'send';
  if (shown === undefined || shown.status !== wanted) return 'send';
  return now - shown.sentAt >= refreshMs ? 'send' : 'skip';
}

export interface StatusTarget {
  /** The Slack channel id. */
  channel: string;
  threadTs: string;
}

export interface StatusCall extends StatusTarget {
  status: string;
}

/** The threads whose status must be re-sent now to outlive Slack's expiry. */
export function dueForRefresh(
  shown: ReadonlyMap<string, ShownStatus & StatusTarget>,
  now: number,
  refreshMs: number = STATUS_REFRESH_MS,
): StatusCall[] {
  return [...shown.values()]
    .filter((entry) => now - entry.sentAt >= refreshMs)
    .map(({ channel, threadTs, status }) => ({ channel, threadTs, status }));
}

export interface AssistantStatusOptions {
  /** The API call (`assistant.threads.setStatus`); rejects with a SurfaceError. */
  send(call: StatusCall, signal: AbortSignal | undefined): Promise<void>;
  now: () => number;
  refreshMs?: number;
}

export interface AssistantStatus {
  /** Shows `status` under the thread (`''` clears it), when due; a no-op once the workspace said it has no status. */
  set(call: StatusCall, signal?: AbortSignal): Promise<void>;
  /** Whether `set(call)` would send now (the runtime books only those with the budget). */
  due(call: StatusCall): boolean;
  /** The statuses to re-send now (the runtime's heartbeat sends them through `set`). */
  dueForRefresh(): StatusCall[];
  /** Why this workspace shows no status (`missing_scope` …), once it said so. */
  readonly unsupported: string | undefined;
}

export function createAssistantStatus(opts: AssistantStatusOptions): AssistantStatus {
  const refreshMs = opts.refreshMs ?? STATUS_REFRESH_MS;
  const shown = new Map<string, ShownStatus & StatusTarget>();
  let unsupported: string | undefined;
  const keyOf = (target: StatusTarget) => `${target.channel}\u0000${target.threadTs}`;

  return {
    get unsupported() {
      return unsupported;
    },
    dueForRefresh: () => (unsupported === undefined ? dueForRefresh(shown, opts.now(), refreshMs) : []),
    due: (call) =>
      unsupported === undefined &&
      statusDecision(shown.get(keyOf(call)), call.status, opts.now(), refreshMs) === 'send',
    async set(call, signal) {
      if (unsupported !== undefined) return;
      const key = keyOf(call);
      if (statusDecision(shown.get(key), call.status, opts.now(), refreshMs) === 'skip') return;
      try {
        await opts.send(call, signal);
      } catch (error) {
        const code = isSurfaceError(error) ? error.details.code : undefined;
        if (typeof code === 'string' && UNSUPPORTED_STATUS_CODES.has(code)) {
          unsupported = code;
          shown.clear();
        }
        throw error;
      }
      if (call.status === '') shown.delete(key);
      else shown.set(key, { ...call, sentAt: opts.now() });
    },
  };
}
