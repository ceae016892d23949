/**
 * Discord's JSON errors `{code, message, errors?}` with the HTTP status and
 * wording the API uses (codes from discord-api-docs "Opcodes and Status
 * Codes" → JSON Error Codes; messages as the live API words them).
 */
import type { HttpAnswer } from '../core/index.js';
import { type FormIssue, formErrorTree } from './form-errors.js';

export const DISCORD_ERRORS = {
  unknownChannel: { status: 404, code: 10003, message: 'Unknown Channel' },
  unknownMessage: { status: 404, code: 10008, message: 'Unknown Message' },
  unknownEmoji: { status: 400, code: 10014, message: 'Unknown Emoji' },
  unauthorized: { status: 401, code: 0, message: '401: Unauthorized' },
  notFound: { status: 404, code: 0, message: '404: Not Found' },
  methodNotAllowed: { status: 405, code: 0, message: '405: Method Not Allowed' },
  requestTooLarge: { status: 413, code: 40005, message: 'Request entity too large' },
  missingPermissions: { status: 403, code: 50013, message: 'Missing Permissions' },
  dmAction: { status: 403, code: 50003, message: 'Cannot execute action on a DM channel' },
  notAuthor: { status: 403, code: 50005, message: 'Cannot edit a message authored by another user' },
  emptyMessage: { status: 400, code: 50006, message: 'Cannot send an empty message' },
  wrongChannelType: { status: 400, code: 50024, message: 'Cannot execute action on this channel type' },
  invalidJson: { status: 400, code: 50109, message: 'The request body contains invalid JSON.' },
  threadArchived: { status: 400, code: 50083, message: 'Thread is archived' },
  editWindowClosed: {
    status: 400,
    code: 30046,
    message: 'Maximum number of edits to messages older than 1 hour reached. Try again later',
  },
  threadExists: { status: 400, code: 160004, message: 'A thread has already been created for this message' },
} as const;

export type DiscordErrorName = keyof typeof DISCORD_ERRORS;

export interface DiscordErrorBody {
  code: number;
  message: string;
  errors?: Record<string, unknown>;
}

export function discordError(name: DiscordErrorName): HttpAnswer {
  const { status, code, message } = DISCORD_ERRORS[name];
  return { status, body: { code, message } satisfies DiscordErrorBody };
}

/** 400 `{code: 50035, message: 'Invalid Form Body', errors: {…}}`. */
export function invalidFormBody(issues: readonly FormIssue[]): HttpAnswer {
  return {
    status: 400,
    body: {
      code: 50035,
      message: 'Invalid Form Body',
      errors: formErrorTree(issues),
    } satisfies DiscordErrorBody,
  };
}
