import { redactCommandFields } from './command-line.js';
import { redactSecrets } from './redact.js';
import { REDACTED } from './redaction-marker.js';
import type { RunEvent } from './schema.js';
import { isSecretName } from './secret-names.js';

/**
 * Fields that identify or classify an event rather than carry free text:
 * ids, enums, numbers, flags. Every other field, known (`text`, `output`,
 * `summary`, `command`, `args`, `title`, `name`, `input`) or a host's own
 * extra field, is redacted, so text a host adds under a new name cannot slip
 * past redaction.
 */
const STRUCTURAL_FIELDS = new Set([
  'type',
  'space',
  'turnId',
  'at',
  'seq',
  'eventId',
  'subagentId',
  'parentSubagentId',
  'messageId',
  'threadId',
  'ref',
  'dm',
  'root',
  'rootRef',
  'callId',
  'tool',
  'ok',
  'exitCode',
  'status',
  'requestId',
  'questionId',
  'decision',
  'level',
  'outcome',
]);

/** Deeper structures than this are replaced whole rather than walked (no stack exhaustion). */
const MAX_DEPTH = 64;

/**
 * A copy of `event` with every free-text string redacted, recursively through
 * objects and arrays (`input`, `args`). A string under a credential-named key
 * (`{"password": "…"}`) is hidden whole, since its value needs no shape to be
 * a secret. The input is not mutated.
 */
export function redactRunEvent<E extends RunEvent>(event: E): E {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    out[key] = STRUCTURAL_FIELDS.has(key) ? value : redactValue(key, value, 0);
  }
  redactCommandFields(out);
  return out as E;
}

function redactValue(key: string, value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return isSecretName(key) && value !== '' ? REDACTED : redactSecrets(value);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(key, item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(k, v, depth + 1);
  redactCommandFields(out);
  return out;
}
