import { isRedactedMarker } from './redaction-marker.js';

/**
 * Caps `text` at `max` UTF-16 units and appends `…[N more chars]` (N in
 * UTF-16 units) when anything was cut. The kept part never ends on half of a
 * surrogate pair nor inside a `[REDACTED…]` marker; the note is not counted
 * in `max`.
 */
export function capText(text: string, max: number): string {
  if (!Number.isInteger(max) || max < 0) {
    throw new RangeError(`cap must be a non-negative integer, got ${String(max)}`);
  }
  if (text.length <= max) return text;
  const cut = outsideMarker(text, surrogateSafeCut(text, max));
  return `${text.slice(0, cut)}…[${text.length - cut} more chars]`;
}

/** `cut`, moved back by one when it would separate a high surrogate from its low half. */
export function surrogateSafeCut(text: string, cut: number): number {
  if (cut <= 0 || cut >= text.length) return cut;
  const last = text.charCodeAt(cut - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut - 1 : cut;
}

/** A marker cut in half reads like garbage; cut before the marker instead. */
function outsideMarker(text: string, cut: number): number {
  const open = text.lastIndexOf('[', cut - 1);
  if (open === -1 || !isRedactedMarker(text.slice(open, open + 9))) return cut;
  const close = text.indexOf(']', open);
  return close !== -1 && close < cut ? cut : open;
}
