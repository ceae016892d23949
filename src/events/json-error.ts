/**
 * What went wrong in a JSON.parse, without the input. V8 quotes a piece of
 * the text it could not parse (`Unexpected token 'A', "AKIA…" is not valid
 * JSON`, the whole text when it is short), so an error built from its message
 * could carry a secret into a response, a dead letter's reason or a log
 * (issue 9). Only the kind of error and its position are kept.
 */
export function jsonErrorOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/, "[\s\S]* is not valid JSON$/, ' (not valid JSON)')
    .replace(/'[^']*'/, (m) => (m.length <= 4 ? m : "'…'"));
}
