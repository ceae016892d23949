import { jsonErrorOf } from './json-error.js';
import { opensPrivateKeyBlock } from './private-key-blocks.js';
import { redactSecrets } from './redact.js';
import { REDACTED, redactedAs } from './redaction-marker.js';
import { isSecretName } from './secret-names.js';
import { cloudSecretKindAfter, isCloudSecret } from './secret-shapes.js';

/**
 * The first step of ingest, before anything is parsed, stored or logged: a
 * raw line (or a value given in process) comes out with every secret
 * redacted and every direction control removed, in every field, known or
 * not, ids included; or it is refused with a clear error and a payload that
 * is itself redacted, fit to keep as a dead letter. Nothing downstream (the
 * dead letters, the run record, the snapshots, the logs, a platform) ever
 * sees the raw text.
 */

/** Deeper JSON than this is refused before it is parsed (no parser or walker can exhaust the stack). */
export const MAX_JSON_DEPTH = 64;

/**
 * Bidi embeddings, overrides and isolates (U+202A–E, U+2066–9), the
 * direction marks (U+200E/F, U+061C): they make `\u202Egnp.exe` read as
 * `exe.png`. Zero-width space, word joiner and BOM (U+200B, U+2060, U+FEFF)
 * go too: invisible, they could split a secret so that no pattern sees it.
 * ZWJ and ZWNJ stay (emoji sequences, Persian script).
 */
const INVISIBLE_CONTROLS = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;

export function stripBidi(text: string): string {
  return text.replace(INVISIBLE_CONTROLS, '');
}

export type ScrubResult = { ok: true; value: unknown } | { ok: false; error: string; payload: string };

/**
 * A JSON text: depth-checked, parsed, then scrubbed. A value: scrubbed,
 * refused when nested deeper than MAX_JSON_DEPTH (or cyclic).
 */
export function scrubInput(input: unknown): ScrubResult {
  if (typeof input === 'string') {
    const depth = jsonDepth(input, MAX_JSON_DEPTH);
    if (depth > MAX_JSON_DEPTH) {
      return { ok: false, error: tooDeep(), payload: redactRawText(input) };
    }
    let value: unknown;
    try {
      value = JSON.parse(input);
    } catch (error) {
      return { ok: false, error: `invalid JSON: ${jsonErrorOf(error)}`, payload: redactRawText(input) };
    }
    return { ok: true, value: scrubValue('', value, 0) };
  }
  try {
    return { ok: true, value: scrubValue('', input, 0) };
  } catch (error) {
    const message = error instanceof TooDeep ? tooDeep() : `could not read the event: ${String(error)}`;
    return { ok: false, error: redactSecrets(message), payload: '(a value given in process, unreadable)' };
  }
}

const tooDeep = () => `JSON nested deeper than ${MAX_JSON_DEPTH} levels (refused before parsing)`;

class TooDeep extends Error {}

/**
 * Keys and short values (types, ids, spaces, tool names) repeat from event to
 * event, and running every secret pattern over each is most of the cost of an
 * event's scrub. Short strings found clean are remembered (a bounded set,
 * emptied when full); one that had anything to redact is never kept, so no
 * secret outlives its event here.
 */
const CLEAN_CACHE_MAX = 4096;
const CLEAN_CACHE_CHARS = 80;
const cleanShort = new Set<string>();

function scrubText(text: string): string {
  if (cleanShort.has(text)) return text;
  const scrubbed = redactSecrets(stripBidi(text));
  if (scrubbed === text && text.length <= CLEAN_CACHE_CHARS) {
    if (cleanShort.size >= CLEAN_CACHE_MAX) cleanShort.clear();
    cleanShort.add(text);
  }
  return scrubbed;
}

function scrubValue(key: string, value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return isSecretName(key) && stripBidi(value) !== '' ? REDACTED : scrubText(value);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_JSON_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return scrubArray(key, value, depth);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[scrubText(k)] = scrubValue(k, v, depth + 1);
  return out;
}

/**
 * An array's items; a private key given as lines (`["-----BEGIN PRIVATE KEY-----",
 * "MIIE…", …, "-----END PRIVATE KEY-----"]`) is hidden from its BEGIN item to
 * its END item, as it would be in one string.
 */
function scrubArray(key: string, items: unknown[], depth: number): unknown[] {
  let inKey = false;
  // After a cloud access-key id item (`["AKIA…", "wJalr…"]`), the kind of secret the next item may be.
  let cloudSecret: string | undefined;
  return items.map((item) => {
    const afterCloudId = cloudSecret;
    cloudSecret = undefined;
    if (inKey && typeof item === 'string') {
      const plain = stripBidi(item);
      if (!plain.includes('-----END ')) return REDACTED;
      inKey = false;
      // Read as the rest of the block: everything through its END line goes.
      return scrubText(`-----BEGIN PRIVATE KEY-----${plain}`);
    }
    if (afterCloudId !== undefined && typeof item === 'string' && isCloudSecret(stripBidi(item).trim())) {
      return redactedAs(afterCloudId);
    }
    const scrubbed = scrubValue(key, item, depth + 1);
    if (typeof item === 'string' && opensPrivateKeyBlock(stripBidi(item))) inKey = true;
    if (typeof scrubbed === 'string') cloudSecret = cloudSecretKindAfter(scrubbed);
    return scrubbed;
  });
}

/**
 * The nesting depth of a JSON text (brackets outside strings), counted up to
 * `stopAbove + 1`: one linear scan, no recursion, whatever the input.
 */
export function jsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A JSON string literal, complete, on one line. */
const STRING_LITERAL = /"(?:[^"\\\r\n]|\\.)*"/g;

/**
 * Text that is not usable JSON, redacted for keeping: each complete string
 * literal in it is decoded (so `\u0041KIA…` or a `\n`-escaped YAML line is
 * seen as it reads), redacted and encoded again; then the whole text is
 * redacted once more for what spans literals (`"password": "…"`).
 */
export function redactRawText(text: string): string {
  // A key given as one literal per line: from a literal that opens a block to the one that ends it.
  let inKey = false;
  const literals = stripBidi(text).replace(STRING_LITERAL, (literal) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(literal);
    } catch {
      return literal;
    }
    if (typeof decoded !== 'string') return literal;
    if (inKey) {
      if (!decoded.includes('-----END ')) return JSON.stringify(REDACTED);
      inKey = false;
      return JSON.stringify(redactSecrets(`-----BEGIN PRIVATE KEY-----${decoded}`));
    }
    inKey = opensPrivateKeyBlock(decoded);
    return JSON.stringify(redactSecrets(decoded));
  });
  return redactSecrets(literals);
}
