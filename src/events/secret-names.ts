import { REDACTED, REDACTED_PREFIX } from './redaction-marker.js';

/**
 * The name-gated pass (docs/architecture.md item 3): a value is hidden when the
 * name it is assigned to says it holds a credential, whatever the value looks
 * like. The name stays visible: `AWS_SECRET_ACCESS_KEY=[REDACTED]`.
 */

/** Words that mark a credential wherever they sit in a name (`SECRET_KEY_BASE`). */
const STRONG_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
]);
/** Words that mark a credential only as the name's last word (`GITHUB_TOKEN`, not `TOKEN_LIMIT`). */
const LAST_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'auth',
  'authorization',
  'cookie',
  'pass',
  'pat',
  'secretkey',
  'accesskey',
  'privatekey',
  'signingkey',
  'masterkey',
]);
/** A last word with one of these endings marks one too (`PGPASSWORD`, `_authToken`, `clientsecret`). */
const CREDENTIAL_ENDINGS = ['token', 'secret', 'password', 'passwd'];
/** A last word that says the value is about the credential, not the credential (`PASSWORD_MIN_LENGTH`). */
const METADATA_WORDS = new Set([
  'file',
  'path',
  'dir',
  'name',
  'id',
  'type',
  'length',
  'len',
  'size',
  'count',
  'min',
  'max',
  'limit',
  'policy',
  'enabled',
  'required',
  'ttl',
  'expiry',
  'expires',
  'version',
  'url',
]);

/** `AWS_SECRET_ACCESS_KEY`, `apiKey`, `AWSSecretKey`, `client-secret`, `password2` → words (digits dropped). */
export function nameWords(name: string): string[] {
  return (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? []).map((w) => w.toLowerCase());
}

/** Every gate word contains one of these: a cheap first test for the common non-secret name. */
const MAYBE_SECRET = /key|token|secret|pass|pwd|auth|credential|pat|cookie/i;

/** Whether a value assigned to `name` is a credential. */
export function isSecretName(name: string): boolean {
  if (!MAYBE_SECRET.test(name)) return false;
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined || METADATA_WORDS.has(last)) return false;
  if (LAST_WORDS.has(last) || CREDENTIAL_ENDINGS.some((e) => last.endsWith(e))) return true;
  return words.some((w) => STRONG_WORDS.has(w));
}

/**
 * Where a value may follow a name: `"name": …` / `'name': …` (JSON, Python,
 * also with the `\"` escapes of JSON inside a JSON string), `NAME=…` /
 * `NAME = …` / `--name=…` / `-Dname=…`, and `name: …` (YAML, HTTP headers).
 * Names are bounded (128 chars) and cannot start mid-word, so a failed
 * attempt costs a bounded amount and the scan stays linear.
 */
const CANDIDATE =
  /(?<![\w.$-])(?:(\\?["'])(?=[\w.-]{0,127}?(?:key|token|secret|pass|pwd|auth|credential|pat|cookie))([A-Za-z_][\w.-]{0,127})\1[ \t]*:[ \t]*|-{0,2}(?=[\w.-]{0,127}?(?:key|token|secret|pass|pwd|auth|credential|pat|cookie))([A-Za-z_][\w.-]{0,127})(?:([ \t]*=[ \t]*)|(:[ \t]*)))/gi;

/** The groups of a CANDIDATE match: a quoted name, or a bare name with `=` or `:`. */
interface Candidate {
  quote?: string;
  name: string;
  equals?: string;
  colon?: string;
}

/** Quoted values: the content goes, the quotes stay; an unclosed quote hides the rest of the line. */
const DOUBLE_QUOTED = /"((?:[^"\\\r\n]|\\.)*)("?)/y;
const SINGLE_QUOTED = /'([^'\r\n]*)('?)/y;
const ESCAPED_QUOTED = /\\"((?:[^"\\\r\n]|\\[^"\r\n])*)((?:\\")?)/y;
/** `NAME=value` with no spaces (env files, query strings, flags): up to a space, quote, `&` or `;`. */
const TIGHT_VALUE = /[^\s"'`&;<>]+/y;
/** `name = value` (INI, TOML, code): a narrower word, so `f(key = x)` keeps its punctuation. */
const SPACED_VALUE = /[^\s"'`&;<>(){}[\],]+/y;
/** `name: value` on its own line (YAML, an HTTP header): the rest of the line. */
const LINE_VALUE = /[^\r\n]+/y;

/** Values that are not credentials: empty, a keyword, a reference to one kept elsewhere. */
const NOT_A_CREDENTIAL =
  /^(?:true|false|null|nil|none|undefined|\$\w+|\$\{[^}]*\}|\$\(.*|%\w+%|\{\{.*\}\}|(?:process\.env|os\.environ|import\.meta\.env)\b.*)$/i;

/** Where a value was read, and whether it is to be hidden. */
interface ValueSpan {
  start: number;
  end: number;
  hide: boolean;
}

export function redactSecretAssignments(text: string): string {
  CANDIDATE.lastIndex = 0;
  let out = '';
  let kept = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const candidate: Candidate = { quote: m[1], name: m[2] ?? m[3] ?? '', equals: m[4], colon: m[5] };
    if (!isSecretName(candidate.name)) continue;
    const value = findValue(text, m.index, CANDIDATE.lastIndex, candidate);
    if (value === null) continue;
    if (value.hide) {
      out += `${text.slice(kept, value.start)}${REDACTED}`;
      kept = value.end;
    }
    // A value read once is never read again, kept or hidden: that keeps the pass linear.
    CANDIDATE.lastIndex = Math.max(value.end, CANDIDATE.lastIndex);
  }
  return out + text.slice(kept);
}

/** The value after a secret name, or null when what follows is not an assignment's value. */
function findValue(text: string, nameStart: number, at: number, candidate: Candidate): ValueSpan | null {
  const quoted = readQuoted(text, at);
  if (quoted !== undefined) return quoted;
  if (candidate.quote !== undefined) return readWith(SPACED_VALUE, text, at);
  if (candidate.equals !== undefined) {
    // `token == x` is a comparison; `key = f(x)` computes the value.
    if (text[at] === '=') return null;
    if (candidate.equals.trim() === candidate.equals) return readWith(TIGHT_VALUE, text, at);
    const span = readWith(SPACED_VALUE, text, at);
    return span !== null && text[span.end] === '(' ? { ...span, hide: false } : span;
  }
  // A colon needs a line to itself (YAML, headers) or a quote before the name (`-H "X-Api-Key: …"`).
  const opener = text[nameStart - 1];
  const ownLine = startsLine(text, nameStart);
  if (!ownLine && opener !== '"' && opener !== "'") return null;
  if (candidate.colon !== undefined && candidate.colon.length === 1 && ownLine) return null; // `a:b` is not YAML.
  return readWith(ownLine ? LINE_VALUE : TIGHT_VALUE, text, at);
}

function readQuoted(text: string, at: number): ValueSpan | null | undefined {
  const pattern =
    text[at] === '"'
      ? DOUBLE_QUOTED
      : text[at] === "'"
        ? SINGLE_QUOTED
        : text.startsWith('\\"', at)
          ? ESCAPED_QUOTED
          : undefined;
  if (pattern === undefined) return undefined;
  pattern.lastIndex = at;
  const m = pattern.exec(text);
  const content = m?.[1] ?? '';
  const start = at + (pattern === ESCAPED_QUOTED ? 2 : 1);
  return { start, end: start + content.length, hide: hideable(content) };
}

function readWith(pattern: RegExp, text: string, at: number): ValueSpan | null {
  pattern.lastIndex = at;
  const m = pattern.exec(text);
  if (m === null) return null;
  const value = m[0].trimEnd();
  return { start: at, end: at + value.length, hide: hideable(value) };
}

/** A value an earlier pass already handled (`Authorization: Bearer [REDACTED]`) keeps its finer redaction. */
function hideable(value: string): boolean {
  return value.length > 0 && !value.includes(REDACTED_PREFIX) && !NOT_A_CREDENTIAL.test(value);
}

/** Only indentation or a YAML list dash between the line start and `index`. */
function startsLine(text: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  if (text[i] === '-') {
    i--;
    while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  }
  return i < 0 || text[i] === '\n' || text[i] === '\r';
}
