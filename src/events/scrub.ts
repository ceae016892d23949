import { redactArgv, redactCommandFields } from './command-line.js';
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
export function scrubInput(input: unknown, streams?: KeyStreams): ScrubResult {
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
    return { ok: true, value: scrubEvent(value, streams) };
  }
  try {
    return { ok: true, value: scrubEvent(input, streams) };
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

/**
 * Private keys streamed across events: a tool's output (or an assistant's
 * text) in chunks, the key's BEGIN line in one event, its body in the next
 * ones, its END line in a later one. A stream is one field of the events of
 * one space, turn and call (or subagent, or else event type); once a chunk
 * leaves a key open, the next chunks of that stream are key material up to
 * the END line or the first line that is not base64. In memory only, and
 * bounded: past `max` open streams the oldest is forgotten (the stateless
 * net in private-key-blocks.ts still hides full-width key lines then, as it
 * does after a restart).
 */
export class KeyStreams {
  private readonly open = new Set<string>();

  constructor(private readonly max = 4096) {}

  get size(): number {
    return this.open.size;
  }

  isOpen(stream: string): boolean {
    return this.open.has(stream);
  }

  set(stream: string, open: boolean): void {
    this.open.delete(stream);
    if (!open) return;
    if (this.open.size >= this.max) {
      const oldest = this.open.values().next().value;
      if (oldest !== undefined) this.open.delete(oldest);
    }
    this.open.add(stream);
  }
}

/** An event's stream id (space, turn, call or subagent or type), each part bounded. */
function streamOf(event: Record<string, unknown>): string {
  const part = (v: unknown) => (typeof v === 'string' ? v.slice(0, 256) : '');
  const source = part(event.callId) || part(event.subagentId) || `type:${part(event.type)}`;
  return `${part(event.space)}\u0000${part(event.turnId)}\u0000${source}`;
}

/** A whole event: its top-level text fields continue (or open) their streams' keys. */
function scrubEvent(value: unknown, streams: KeyStreams | undefined): unknown {
  if (streams === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    return scrubValue('', value, 0);
  }
  let stream: string | undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // The common case first: no stream is open and this text opens none.
    if (typeof v !== 'string' || (streams.size === 0 && !v.includes('-----BEGIN ')) || isSecretName(k)) {
      out[scrubText(k)] = scrubValue(k, v, 1);
      continue;
    }
    stream ??= streamOf(value as Record<string, unknown>);
    const field = `${stream}\u0000${k}`;
    const plain = stripBidi(v);
    const open = streams.isOpen(field);
    if (open && plain.trim() === '') {
      out[scrubText(k)] = plain; // an empty chunk neither ends a key nor shows any of it
      continue;
    }
    const { hidden, ended, rest } = open
      ? keyContinuation(plain)
      : { hidden: false, ended: false, rest: plain };
    out[scrubText(k)] = hidden ? `${redactedAs('private-key')}${scrubText(rest)}` : scrubText(rest);
    // Still open: all of this chunk was key material, or what follows its key opens another.
    streams.set(field, (hidden && !ended && rest === '') || opensPrivateKeyBlock(rest));
  }
  redactCommandFields(out);
  return out;
}

/**
 * The start of a chunk that continues a key: whole lines of base64 (or a PEM
 * header such as `Proc-Type:`, or blank), through the END line if there is
 * one; `rest` is what follows, to be read as ordinary text.
 */
function keyContinuation(text: string): { hidden: boolean; ended: boolean; rest: string } {
  let at = 0;
  while (at < text.length) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(at, lineEnd);
    const end = line.indexOf('-----END ');
    if (end !== -1) {
      const dashes = line.indexOf('-----', end + '-----END '.length);
      const through = dashes === -1 ? lineEnd : at + dashes + '-----'.length;
      return { hidden: true, ended: true, rest: text.slice(through) };
    }
    if (!KEY_MATERIAL_LINE.test(line)) break;
    at = newline === -1 ? text.length : newline + 1;
  }
  // The line break after the last hidden line stays with the text after it.
  const cut = at > 0 && at < text.length ? at - 1 : at;
  return { hidden: cut > 0, ended: false, rest: text.slice(cut) };
}

/** A line of a key's body: base64, blank, or an encrypted PEM's `Proc-Type:` / `DEK-Info:` header. */
const KEY_MATERIAL_LINE = /^(?:[A-Za-z0-9+/=]*|(?:Proc-Type|DEK-Info|Comment):[^\n]*)\r?$/;

function scrubValue(key: string, value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return isSecretName(key) && stripBidi(value) !== '' ? REDACTED : scrubText(value);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_JSON_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return scrubArray(key, value, depth);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[scrubText(k)] = scrubValue(k, v, depth + 1);
  redactCommandFields(out);
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
  return redactSecrets(redactLiteralsAsWords(literals));
}

/**
 * The string literals of a text that is not JSON, read in order as one
 * command's words (command-line.ts): a command and its args cut short still
 * lose what they hide together. Over-reading (keys read as words) can only
 * hide more.
 */
function redactLiteralsAsWords(text: string): string {
  const words: string[] = [];
  for (const m of text.matchAll(STRING_LITERAL)) {
    try {
      const decoded: unknown = JSON.parse(m[0]);
      if (typeof decoded === 'string') words.push(decoded);
    } catch {
      // Not a literal JSON reads: it stays as the text-wide pass sees it.
    }
  }
  const redacted = redactArgv(words);
  let i = 0;
  return text.replace(STRING_LITERAL, (literal) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(literal);
    } catch {
      return literal;
    }
    if (typeof decoded !== 'string') return literal;
    const word = redacted[i++] ?? decoded;
    return word === decoded ? literal : JSON.stringify(word);
  });
}
