/**
 * The text that replaces a hidden secret. Fixed credential shapes say what
 * they were (`[REDACTED:github-token]`) so a reader can tell which credential
 * leaked; a value hidden behind its visible name (`PASSWORD=[REDACTED]`)
 * needs no kind.
 */
export const REDACTED = '[REDACTED]';
export const REDACTED_PREFIX = '[REDACTED';

export function redactedAs(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** True when a value was already hidden by an earlier pass (keeps redaction idempotent). */
export function isRedactedMarker(value: string): boolean {
  return value.startsWith(REDACTED_PREFIX);
}
