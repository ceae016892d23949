import { redactSecrets } from './redact.js';
import { REDACTED } from './redaction-marker.js';

/**
 * A command given as separate words (`policy_request.command` + `args`, an
 * `argv` array) is redacted as the one command line it is: item by item, no
 * rule sees `--password` next to its value, or `mysql` before `-pPW`. The
 * words are joined with tabs (every flag rule reads a tab as a space, and no
 * value runs over one), redacted, and split back, so the array keeps its
 * shape.
 */
const SEPARATOR = '\t';

/** Array fields read as a command's words; a `command`/`cmd` string beside them is the first word. */
const ARGV_KEYS = new Set(['args', 'argv', 'arguments', 'command', 'cmd']);

export function redactArgv(words: readonly string[]): string[] {
  if (words.length < 2) return words.map((w) => redactSecrets(w));
  const redacted = redactSecrets(words.join(SEPARATOR)).split(SEPARATOR);
  return redacted.length === words.length ? redacted : realign(words, redacted);
}

/**
 * A redaction that ran over a separator (or a word that held a tab) changed
 * the count: the words that still read as they did at either end keep their
 * places, and the redacted pieces between them fill the words between, the
 * last of those taking what is left; a word with no piece left was inside a
 * hidden value and is hidden whole.
 */
function realign(words: readonly string[], pieces: string[]): string[] {
  let front = 0;
  while (front < words.length && front < pieces.length && words[front] === pieces[front]) front++;
  let back = 0;
  while (
    back < words.length - front &&
    back < pieces.length - front &&
    words[words.length - 1 - back] === pieces[pieces.length - 1 - back]
  ) {
    back++;
  }
  const middleWords = words.length - front - back;
  const middle = pieces.slice(front, pieces.length - back);
  const filled: string[] = [];
  for (let i = 0; i < middleWords; i++) {
    if (i < middleWords - 1) filled.push(middle[i] ?? REDACTED);
    else filled.push(i < middle.length ? middle.slice(i).join(SEPARATOR) : REDACTED);
  }
  return [...pieces.slice(0, front), ...filled, ...pieces.slice(pieces.length - back)];
}

/**
 * In place, on an object whose strings were already redacted one by one:
 * each command-word array (with the `command`/`cmd` string beside it as its
 * first word) is redacted again as one command line.
 */
export function redactCommandFields(object: Record<string, unknown>): void {
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (!ARGV_KEYS.has(key) || !Array.isArray(value) || !value.every((v) => typeof v === 'string')) continue;
    const head = ['command', 'cmd'].find((k) => k !== key && typeof object[k] === 'string');
    if (head === undefined) {
      object[key] = redactArgv(value as string[]);
      continue;
    }
    const [command, ...args] = redactArgv([object[head] as string, ...(value as string[])]);
    object[head] = command;
    object[key] = args;
  }
}
