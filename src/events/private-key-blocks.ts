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
  return redactOrphanKeyBodies(redactWholeBlocks(text));
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
