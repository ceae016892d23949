import { capText } from './cap.js';
import { redactPrivateKeyBlocks } from './private-key-blocks.js';
import { redactPromptAnswers } from './prompt-answers.js';
import { redactProsePasswords } from './prose-passwords.js';
import { redactSecretAssignments } from './secret-names.js';
import { SECRET_SHAPES } from './secret-shapes.js';

/**
 * Hides every credential in `text` (docs/architecture.md item 3): PEM private-key
 * blocks first (they span lines), then the shapes and surrounding syntax of
 * known credentials, then the name-gated passes (answers typed at a prompt,
 * assignments, a password typed as prose). Each pass leaves an earlier pass's marker alone, so
 * redacting twice changes nothing.
 */
export function redactSecrets(text: string): string {
  let out = redactPrivateKeyBlocks(text);
  for (const shape of SECRET_SHAPES) {
    shape.pattern.lastIndex = 0;
    out = out.replace(shape.pattern, shape.replace);
    shape.done?.();
  }
  return redactProsePasswords(redactSecretAssignments(redactPromptAnswers(out)));
}

/**
 * Redacts, then caps at `max` UTF-16 units with `…[N more chars]`. Redacting
 * first means a secret straddling the cap is replaced whole, never cut into a
 * fragment the patterns no longer recognise.
 */
export function redactAndCap(text: string, max: number): string {
  return capText(redactSecrets(text), max);
}
