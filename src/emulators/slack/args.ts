/**
 * A Web API call's arguments as Slack reads them: form fields
 * (`application/x-www-form-urlencoded`, the web-api client's default, where
 * arrays such as `blocks` arrive JSON-encoded) or a JSON object, plus query
 * parameters; the token from `Authorization: Bearer …` or a `token` form
 * field. Slack refuses a token in a JSON body ("you must provide your token
 * value using an Authorization HTTP header") or in the query string (apps
 * created since February 2021): there it counts as no token.
 */
import type { EmulatorRequest } from '../core/index.js';

export interface SlackArgs {
  /** null → `not_authed`. */
  token: string | null;
  fields: Record<string, unknown>;
}

const BEARER = /^Bearer\s+(\S+)$/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJsonBody(req: EmulatorRequest): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json';
}

export function readSlackArgs(req: EmulatorRequest): SlackArgs {
  const fields: Record<string, unknown> = {
    ...Object.fromEntries(req.query),
    ...(isRecord(req.body) ? req.body : {}),
  };
  const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1];
  const formToken = !isJsonBody(req) && isRecord(req.body) ? req.body.token : undefined;
  const token = bearer ?? (typeof formToken === 'string' && formToken !== '' ? formToken : null);
  return { token, fields };
}

/** A string argument; numbers are read as their decimal form (a JSON `ts` sent as a number). Absent → undefined. */
export function stringArg(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** A boolean argument: `true`, `"true"`, `"1"` or `1`. */
export function booleanArg(fields: Record<string, unknown>, name: string): boolean {
  const value = fields[name];
  return value === true || value === 'true' || value === '1' || value === 1;
}
