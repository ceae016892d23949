/** How a client reports an event the ingest did not take: never dropped silently. */

export type NotAcceptedKind =
  /** The ingest answered and refused it (validation, an ended turn, a body over its limit, a bad token). */
  | 'rejected'
  /** It never got an answer: network errors or 5xx until the retries ran out. */
  | 'undelivered';

export class EventNotAcceptedError extends Error {
  override readonly name = 'EventNotAcceptedError';
  constructor(
    /** The event as it was queued (for `send`, the very object passed in). */
    readonly event: Record<string, unknown>,
    /** The ingest's error, or why it could not be reached. */
    readonly reason: string,
    readonly kind: NotAcceptedKind,
    /**
     * The `eventId` it was sent with (the HTTP client stamps one on every
     * event): send it again with this id, and the ingest applies it at most once.
     */
    readonly eventId?: string,
    /** The HTTP status the ingest answered with, when it answered (401: the token was refused). */
    readonly status?: number,
  ) {
    super(
      `turnlog ${kind === 'rejected' ? 'rejected' : 'could not deliver'} ${describeEvent(event)}: ${reason}`,
    );
  }
}

/** Thrown by `end()`/`close()` when some events were not accepted. */
export class DeliveryError extends AggregateError {
  override readonly name = 'DeliveryError';
  declare readonly errors: EventNotAcceptedError[];
  /** `scope`: whose events they are (`of turn T1`), or nothing for the whole client. */
  constructor(errors: EventNotAcceptedError[], scope?: string) {
    const shown = errors.slice(0, 3).map((e) => e.message);
    const more = errors.length > shown.length ? `; and ${errors.length - shown.length} more` : '';
    const count = errors.length === 1 ? '1 event' : `${errors.length} events`;
    super(
      errors,
      `${count}${scope ? ` ${scope}` : ''} ${errors.length === 1 ? 'was' : 'were'} not accepted: ${shown.join('; ')}${more}`,
    );
  }
}

/**
 * `tool_call c1 of turn T1`, `note of turn T1 in subagent s1`,
 * `subagent s1 (started) of turn T1`, `inbound 1700.01 in gchat:spaces/A`.
 */
export function describeEvent(event: Record<string, unknown>): string {
  const type = typeof event.type === 'string' ? event.type : 'event without a type';
  const isSubagent = type === 'subagent';
  const id = firstString(event, isSubagent ? ['subagentId'] : ['callId', 'requestId', 'messageId']);
  const status = isSubagent && typeof event.status === 'string' ? ` (${event.status})` : '';
  const where =
    typeof event.turnId === 'string'
      ? ` of turn ${event.turnId}`
      : typeof event.space === 'string'
        ? ` in ${event.space}`
        : '';
  const subagent =
    !isSubagent && typeof event.subagentId === 'string' ? ` in subagent ${event.subagentId}` : '';
  return `${type}${id === undefined ? '' : ` ${id}`}${status}${where}${subagent}`;
}

function firstString(event: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const value = event[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
