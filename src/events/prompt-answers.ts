import { isRedactedMarker, REDACTED } from './redaction-marker.js';
import { isSecretName } from './secret-names.js';

/**
 * The answer typed at an interactive prompt that shows its default in
 * brackets (`aws configure`: `AWS Secret Access Key [None]: …`, and the many
 * CLIs that copy it), echoed into a tool's output or a transcript. The
 * prompt's name decides, as a variable's does (`isSecretName` on its words):
 * `Default region name [None]: eu-west-1` stays. One attempt per line start,
 * each bounded (a 64-character name, a 128-character default), so the pass
 * stays linear.
 */
const PROMPT_ANSWER =
  /^([ \t]*([A-Za-z][A-Za-z0-9 _.-]{0,63}?)[ \t]*\[[^\]\r\n]{0,128}\]:[ \t]*)(\S[^\r\n]*)/gm;

export function redactPromptAnswers(text: string): string {
  if (!text.includes(']:')) return text;
  PROMPT_ANSWER.lastIndex = 0;
  return text.replace(PROMPT_ANSWER, (match, prompt: string, name: string, answer: string) => {
    if (!isSecretName(name.trim().replace(/[ .-]+/g, '_')) || isRedactedMarker(answer)) return match;
    // Trailing blanks (and a CR) stay: trimmed here rather than by the pattern, which keeps it linear.
    return `${prompt}${REDACTED}${answer.slice(answer.trimEnd().length)}`;
  });
}
