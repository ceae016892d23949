import { redactedAs } from './redaction-marker.js';

/** `-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP ]PRIVATE KEY[ BLOCK]-----`. */
const BEGIN_PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Replaces every PEM private-key block, from its BEGIN line through its END
 * line, whatever separates the lines (real newlines or the `\n` escapes of a
 * JSON service-account file). A block with no END (a truncated paste) hides
 * everything to the end of the text: what follows the header is key material.
 * Found with indexOf rather than a lazy `[\s\S]*?` so that many unterminated
 * headers cost one scan, not one scan each.
 */
export function redactPrivateKeyBlocks(text: string): string {
  return redactOneLineKeys(redactKeyLineRuns(redactOrphanKeyBodies(redactWholeBlocks(text))));
}

function redactWholeBlocks(text: string): string {
  if (!text.includes('-----BEGIN ')) return text;
  BEGIN_PRIVATE_KEY.lastIndex = 0;
  let out = '';
  let kept = 0;
  for (let m = BEGIN_PRIVATE_KEY.exec(text); m !== null; m = BEGIN_PRIVATE_KEY.exec(text)) {
    const end = blockEnd(text, BEGIN_PRIVATE_KEY.lastIndex);
    out += text.slice(kept, m.index) + redactedAs('private-key');
    kept = end;
    BEGIN_PRIVATE_KEY.lastIndex = end;
  }
  return out + text.slice(kept);
}

/** Whether `text` leaves a private-key block open: a BEGIN line with no END after it (the key goes on elsewhere). */
export function opensPrivateKeyBlock(text: string): boolean {
  if (!text.includes('-----BEGIN ')) return false;
  BEGIN_PRIVATE_KEY.lastIndex = 0;
  let open = false;
  for (let m = BEGIN_PRIVATE_KEY.exec(text); m !== null; m = BEGIN_PRIVATE_KEY.exec(text)) {
    const end = text.indexOf('-----END ', BEGIN_PRIVATE_KEY.lastIndex);
    open = end === -1;
    if (open) break;
    BEGIN_PRIVATE_KEY.lastIndex = end;
  }
  return open;
}

function blockEnd(text: string, from: number): number {
  const endLine = text.indexOf('-----END ', from);
  if (endLine === -1) return text.length;
  const closingDashes = text.indexOf('-----', endLine + '-----END '.length);
  return closingDashes === -1 ? text.length : closingDashes + '-----'.length;
}

/** `-----END … PRIVATE KEY-----` with no BEGIN before it in this text (whole blocks are gone by now). */
const END_PRIVATE_KEY = /-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * The tail of a private key whose BEGIN line is elsewhere (an earlier chunk of
 * streamed output, an earlier event): the base64 lines right above its END
 * line are key material, so they go with it. Each END looks back only to the
 * previous one, so the pass stays linear.
 */
function redactOrphanKeyBodies(text: string): string {
  if (!text.includes('-----END ')) return text;
  END_PRIVATE_KEY.lastIndex = 0;
  let out = '';
  let kept = 0;
  for (let m = END_PRIVATE_KEY.exec(text); m !== null; m = END_PRIVATE_KEY.exec(text)) {
    let start = m.index;
    // Walk up over whole base64 lines, separated by real newlines or the `\n` escapes of JSON.
    for (;;) {
      const lineEnd = start - breakBefore(text, start, kept);
      if (lineEnd === start) break;
      let lineStart = lineEnd;
      while (lineStart > kept && isBase64Unit(text.charCodeAt(lineStart - 1))) lineStart--;
      // The `n` of a `\n` escape is not key material.
      if (text.charCodeAt(lineStart - 1) === 0x5c && text[lineStart] === 'n') lineStart++;
      // The key's last line may be short (`AB==`); every line above it is a full one.
      if (lineEnd - lineStart < (start === m.index ? 1 : 16)) break;
      start = lineStart;
      // A line with something else before its base64 (`output: MIIEv…`) is the first one.
      if (breakBefore(text, lineStart, kept) === 0 && lineStart > kept) break;
    }
    out += text.slice(kept, start) + redactedAs('private-key');
    kept = END_PRIVATE_KEY.lastIndex;
  }
  return out + text.slice(kept);
}

/** The length of the line break ending right before `at` (`\n`, `\r\n`, or their JSON escapes), 0 if none. */
function breakBefore(text: string, at: number, floor: number): number {
  for (const br of ['\r\n', '\n', '\\r\\n', '\\n']) {
    if (at - br.length >= floor && text.startsWith(br, at - br.length)) return br.length;
  }
  return 0;
}

function isBase64Unit(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x3d
  );
}

/** The widths of a key body's lines: PEM (64) and OpenSSH (70). */
const KEY_LINE_WIDTHS = new Set([64, 70]);
/** Two full-width lines at least: the shortest text holding a run worth looking at. */
const MIN_RUN_TEXT = 2 * 64 + 1;
const FULL_LINE = /[A-Za-z0-9+/]{64}/;

/**
 * Key material with neither its BEGIN nor its END line in this text: the
 * middle chunk of a key streamed across events (or read after a restart lost
 * the stream). Two or more consecutive lines of exactly a key line's width,
 * all base64 with upper case, lower case and digits, go, with one short last
 * line after them that looks like a key's last line. Lines inside another
 * PEM block (a certificate, a public key) stay. One pass over the lines.
 */
function redactKeyLineRuns(text: string): string {
  if (text.length < MIN_RUN_TEXT || !FULL_LINE.test(text)) return text;
  let out = '';
  let kept = 0;
  let runStart = -1;
  let runEnd = -1;
  let runLines = 0;
  let inOtherBlock = false;
  const closeRun = (lineStart: number, lineEnd: number) => {
    if (runLines >= 2) {
      // A key's last line is shorter; a short word after a run is not key material.
      const width = lineEnd - lineStart;
      if (width > 0 && width < 70 && isBase64Run(text, lineStart, lineEnd)) {
        if (width >= 16 || text.charCodeAt(lineEnd - 1) === 0x3d) runEnd = lineEnd;
      }
      out += text.slice(kept, runStart) + redactedAs('private-key');
      kept = runEnd;
    }
    runLines = 0;
  };
  for (let start = 0; start <= text.length; ) {
    const { end, next } = lineAt(text, start);
    const width = end - start;
    if (text.startsWith('-----BEGIN ', start)) inOtherBlock = true;
    else if (text.startsWith('-----END ', start)) inOtherBlock = false;
    if (!inOtherBlock && KEY_LINE_WIDTHS.has(width) && isKeyLine(text, start, end)) {
      if (runLines === 0) runStart = start;
      runLines++;
      runEnd = end;
    } else {
      closeRun(start, end);
      // A line with something else before its base64 (`{"output":"MIIEv…`) may open a run.
      const tail = inOtherBlock ? undefined : keyLineTail(text, start, end);
      if (tail !== undefined) {
        runStart = tail;
        runLines = 1;
        runEnd = end;
      }
    }
    if (next > text.length) break;
    start = next;
  }
  closeRun(text.length, text.length);
  return kept === 0 ? text : out + text.slice(kept);
}

/** Where the line from `start` ends (before `\r\n`, `\n` or their JSON escapes) and where the next begins. */
function lineAt(text: string, start: number): { end: number; next: number } {
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return { end: text.charCodeAt(i - 1) === 0x0d && i > start ? i - 1 : i, next: i + 1 };
    if (c === 0x5c && text.charCodeAt(i + 1) === 0x6e) {
      const crlf = i - 2 >= start && text.startsWith('\\r', i - 2);
      return { end: crlf ? i - 2 : i, next: i + 2 };
    }
  }
  return { end: text.length, next: text.length + 1 };
}

/** Where a full-width key line ends the line `start`–`end`, after something that is not base64. */
function keyLineTail(text: string, start: number, end: number): number | undefined {
  for (const width of KEY_LINE_WIDTHS) {
    const from = end - width;
    if (from > start && !isBase64Unit(text.charCodeAt(from - 1)) && isKeyLine(text, from, end)) return from;
  }
  return undefined;
}

function isBase64Run(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isBase64Unit(text.charCodeAt(i))) return false;
  return true;
}

/** All base64, with an upper-case letter, a lower-case letter and a digit (random bytes nearly always have all three). */
function isKeyLine(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  let digit = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c >= 0x61 && c <= 0x7a) lower = true;
    else if (c >= 0x30 && c <= 0x39) digit = true;
    else if (c !== 0x2b && c !== 0x2f) return false;
  }
  return upper && lower && digit;
}

/**
 * A private key on one line: base64 DER (`MII…`, `MHc…`) whose first bytes
 * are a SEQUENCE opening with a one-byte version INTEGER 0, 1 or 3 (PKCS#1,
 * PKCS#8, SEC1, PKCS#12; a certificate or public key opens with a SEQUENCE
 * or a longer INTEGER instead), or an OpenSSH key blob (`openssh-key-v1`).
 */
const ONE_LINE_KEY = /(?<![A-Za-z0-9+/])(?:M[A-Za-z0-9+/]{79,}|b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{20,})={0,2}/g;

function redactOneLineKeys(text: string): string {
  if (text.length < 40) return text;
  ONE_LINE_KEY.lastIndex = 0;
  return text.replace(ONE_LINE_KEY, (match) => (isPrivateKeyDer(match) ? redactedAs('private-key') : match));
}

function isPrivateKeyDer(base64: string): boolean {
  const head = Buffer.from(base64.slice(0, 24), 'base64');
  if (head.subarray(0, 14).toString('latin1') === 'openssh-key-v1') return true;
  if (head[0] !== 0x30) return false;
  const length = head[1] ?? 0;
  const at = length < 0x80 ? 2 : length >= 0x81 && length <= 0x83 ? 2 + (length - 0x80) : -1;
  if (at === -1) return false;
  return head[at] === 0x02 && head[at + 1] === 0x01 && [0, 1, 3].includes(head[at + 2] ?? -1);
}
