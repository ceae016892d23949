import { isRedactedMarker, REDACTED } from './redaction-marker.js';

/**
 * A password a person types as prose: `my password is …`, `the passcode
 * was …`, `pw: …`, `pwd: …`, `passphrase is: …`. The value after the phrase
 * (one word, quoted or not) goes when it looks like a secret, so that
 * sentences about passwords stay readable: a word shorter than 6
 * characters, or a dictionary-looking one (letters only, at most 14, in
 * lower case, Capitalised or upper case: `wrong`, `required`, `Expired`), is
 * kept; anything else (digits, mixed classes, symbols, a long run of
 * letters) is hidden; a path (`pwd: /home/me`) is kept. Sentence
 * punctuation after the value stays.
 * Linear: every match starts at a literal word and is bounded.
 */
const PROSE_PASSWORD =
  /(?<![\w-])((?:pass(?:word|wd|code|phrase)|pwd?)(?:[ \t]+(?:is|was)(?:[ \t]*:)?[ \t]+|[ \t]*:[ \t]*))(["'`]?)([^\s"'`]{1,256})/gi;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;
const WORD = /^(?:[a-z]{1,14}|[A-Z][a-z]{1,13}|[A-Z]{1,14})(?:['-][a-z]{1,14})?$/;
const MIN_CHARS = 6;
/** `pwd: /home/me/src` is the shell's working directory, not a password. */
const PATH = /^(?:~|\.{1,2})?\/[\w./-]*$/;

/** Whether a value typed after a password phrase reads as a secret rather than a word. */
export function looksLikePassword(value: string): boolean {
  return value.length >= MIN_CHARS && !WORD.test(value) && !PATH.test(value) && !isRedactedMarker(value);
}

export function redactProsePasswords(text: string): string {
  if (!/pass|pw/i.test(text)) return text;
  PROSE_PASSWORD.lastIndex = 0;
  return text.replace(PROSE_PASSWORD, (match, phrase: string, quote: string, word: string) => {
    const value = word.replace(TRAILING_PUNCTUATION, '');
    if (!looksLikePassword(value)) return match;
    return `${phrase}${quote}${REDACTED}${word.slice(value.length)}`;
  });
}
