/** Reading actor errors: the surfaces throw `SurfaceError`s (src/surfaces/surface.ts); anything else is unknown. */

/** The normalised surface error kind of an actor error (SurfaceError or anything with a `kind`). */
export function errorKind(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'kind' in error) {
    const kind = (error as { kind: unknown }).kind;
    return typeof kind === 'string' ? kind : undefined;
  }
  return undefined;
}

/** Retry-After of a rate-limited error; 1 s when the platform gave none. Other errors retry after 500 ms. */
export function retryAfterOf(error: unknown): number {
  if (typeof error === 'object' && error !== null) {
    const e = error as { retryAfterMs?: unknown; kind?: unknown; details?: { retryAfterMs?: unknown } };
    const ms = e.retryAfterMs ?? e.details?.retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
    if (e.kind === 'rate-limited') return 1000;
  }
  return 500;
}

export function describeError(error: unknown): string {
  if (error instanceof Error)
    return errorKind(error) ? `${errorKind(error)}: ${error.message}` : error.message;
  return String(error);
}
