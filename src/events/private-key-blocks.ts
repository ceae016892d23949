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

function blockEnd(text: string, from: number): number {
  const endLine = text.indexOf('-----END ', from);
  if (endLine === -1) return text.length;
  const closingDashes = text.indexOf('-----', endLine + '-----END '.length);
  return closingDashes === -1 ? text.length : closingDashes + '-----'.length;
}
