/**
 * Reads the JSON bodies of the Discord routes the emulator serves, with
 * Discord's field validation: every problem becomes a {@link FormIssue} so
 * the answer is one 50035 naming each bad field, as Discord does.
 */
import { ALLOWED_MENTION_TYPES, type AllowedMentions, type AllowedMentionType } from './allowed-mentions.js';
import { legacyFieldIssues, type ParsedComponents, readComponents } from './components.js';
import { type FormIssue, formIssue } from './form-errors.js';
import { isSnowflake } from './snowflake.js';

/** Message flag `IS_COMPONENTS_V2` (1 << 15): the message is made of components only. */
export const IS_COMPONENTS_V2 = 1 << 15;

/** Message `content` limit in characters (Unicode code points). */
export const MAX_CONTENT_CHARS = 2000;
export const MAX_EMBEDS = 10;
/** Create Message `nonce`: a string of at most 25 characters, or an integer. */
export const MAX_NONCE_CHARS = 25;
export const MAX_THREAD_NAME_CHARS = 100;
export const AUTO_ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: FormIssue[] };

type Path = FormIssue['path'];
type Fields = Record<string, unknown>;

const isDict = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body as an object (an absent body is an empty one), or the root issue. */
function dictBody(body: unknown, issues: FormIssue[]): Fields {
  if (body === undefined) return {};
  if (isDict(body)) return body;
  issues.push(formIssue.notDict([]));
  return {};
}

function readString(
  value: unknown,
  path: Path,
  issues: FormIssue[],
  limits: { min?: number; max: number },
): string | undefined {
  if (typeof value !== 'string') {
    issues.push(formIssue.notString(path, value));
    return undefined;
  }
  const length = [...value].length;
  if (limits.min !== undefined && (length < limits.min || length > limits.max)) {
    issues.push(formIssue.badLength(path, limits.min, limits.max));
  } else if (length > limits.max) {
    issues.push(formIssue.maxLength(path, limits.max));
  }
  return value;
}

function readFlags(value: unknown, path: Path, issues: FormIssue[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    issues.push(formIssue.notInt(path, value));
    return undefined;
  }
  return value as number;
}

function readBoolean(value: unknown, path: Path, issues: FormIssue[]): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    issues.push(formIssue.notBoolean(path));
    return undefined;
  }
  return value;
}

function readSnowflakes(value: unknown, path: Path, issues: FormIssue[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    issues.push(formIssue.notList(path));
    return undefined;
  }
  value.forEach((id, index) => {
    if (!isSnowflake(String(id))) issues.push(formIssue.notSnowflake([...path, index], id));
  });
  return value.map(String);
}

function readAllowedMentions(value: unknown, issues: FormIssue[]): AllowedMentions | undefined {
  const path = ['allowed_mentions'];
  if (value === undefined || value === null) return undefined;
  if (!isDict(value)) {
    issues.push(formIssue.notDict(path));
    return undefined;
  }
  const allowed: AllowedMentions = {};
  if (value.parse !== undefined) {
    if (!Array.isArray(value.parse)) issues.push(formIssue.notList([...path, 'parse']));
    else {
      value.parse.forEach((type, index) => {
        if (!ALLOWED_MENTION_TYPES.includes(type))
          issues.push(formIssue.notInEnum([...path, 'parse', index], type));
      });
      allowed.parse = value.parse as AllowedMentionType[];
    }
  }
  const roles = readSnowflakes(value.roles, [...path, 'roles'], issues);
  const users = readSnowflakes(value.users, [...path, 'users'], issues);
  if (roles) allowed.roles = roles;
  if (users) allowed.users = users;
  const repliedUser = readBoolean(value.replied_user, [...path, 'replied_user'], issues);
  if (repliedUser !== undefined) allowed.replied_user = repliedUser;
  // Documented: a type in `parse` and a list of the same type are mutually exclusive.
  for (const type of ['roles', 'users'] as const) {
    if (allowed.parse?.includes(type) && (allowed[type]?.length ?? 0) > 0) {
      issues.push({
        path,
        code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        message: `parse:["${type}"] and ${type}: [ids] are mutually exclusive.`,
      });
    }
  }
  return allowed;
}

function readEmbeds(value: unknown, issues: FormIssue[]): Fields[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.push(formIssue.notList(['embeds']));
    return undefined;
  }
  if (value.length > MAX_EMBEDS) issues.push(formIssue.maxLength(['embeds'], MAX_EMBEDS));
  value.forEach((embed, index) => {
    if (!isDict(embed)) issues.push(formIssue.notDict(['embeds', index]));
  });
  return value.filter(isDict);
}

export interface MessageReference {
  messageId: string;
  channelId?: string;
  /** Default true: an unknown referenced message is an error rather than a plain message. */
  failIfNotExists: boolean;
}

function readMessageReference(value: unknown, issues: FormIssue[]): MessageReference | undefined {
  const path = ['message_reference'];
  if (value === undefined || value === null) return undefined;
  if (!isDict(value)) {
    issues.push(formIssue.notDict(path));
    return undefined;
  }
  if (value.message_id === undefined) {
    issues.push(formIssue.required([...path, 'message_id']));
    return undefined;
  }
  const messageId = String(value.message_id);
  if (!isSnowflake(messageId)) issues.push(formIssue.notSnowflake([...path, 'message_id'], value.message_id));
  const channelId = value.channel_id === undefined ? undefined : String(value.channel_id);
  if (channelId !== undefined && !isSnowflake(channelId)) {
    issues.push(formIssue.notSnowflake([...path, 'channel_id'], value.channel_id));
  }
  const failIfNotExists = readBoolean(value.fail_if_not_exists, [...path, 'fail_if_not_exists'], issues);
  return {
    messageId,
    ...(channelId === undefined ? {} : { channelId }),
    failIfNotExists: failIfNotExists ?? true,
  };
}

function readNonce(value: unknown, issues: FormIssue[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Number.isSafeInteger(value)) return String(value);
  return readString(value, ['nonce'], issues, { max: MAX_NONCE_CHARS });
}

const finish = <T>(issues: FormIssue[], value: T): Parsed<T> =>
  issues.length > 0 ? { ok: false, issues } : { ok: true, value };

/** Create Message (`POST /channels/{c}/messages`). */
export interface CreateMessageBody {
  content?: string;
  /** Flags as requested (the handler drops those that can't be set on create). */
  flags: number;
  allowedMentions?: AllowedMentions;
  messageReference?: MessageReference;
  nonce?: string;
  /** With a nonce: a repeat within the nonce window returns the first message instead of a new one. */
  enforceNonce: boolean;
  embeds: Fields[];
  /** Absent when the request has none. */
  components?: ParsedComponents;
}

export function parseCreateMessage(body: unknown): Parsed<CreateMessageBody> {
  const issues: FormIssue[] = [];
  const fields = dictBody(body, issues);
  const content =
    fields.content === undefined || fields.content === null
      ? undefined
      : readString(fields.content, ['content'], issues, { max: MAX_CONTENT_CHARS });
  const flags = readFlags(fields.flags, ['flags'], issues) ?? 0;
  const allowedMentions = readAllowedMentions(fields.allowed_mentions, issues);
  const messageReference = readMessageReference(fields.message_reference, issues);
  const nonce = readNonce(fields.nonce, issues);
  const enforceNonce = readBoolean(fields.enforce_nonce, ['enforce_nonce'], issues) ?? false;
  const embeds = readEmbeds(fields.embeds, issues) ?? [];
  const v2 = (flags & IS_COMPONENTS_V2) !== 0;
  const components = readComponents(fields.components, v2, issues);
  if (v2) issues.push(...legacyFieldIssues({ content: content ?? '', embeds: embeds.length }));
  return finish(issues, {
    ...(content === undefined ? {} : { content }),
    ...(components === undefined ? {} : { components }),
    flags,
    ...(allowedMentions ? { allowedMentions } : {}),
    ...(messageReference ? { messageReference } : {}),
    ...(nonce === undefined ? {} : { nonce }),
    enforceNonce,
    embeds,
  });
}

/** Edit Message (`PATCH /channels/{c}/messages/{m}`): absent fields stay as they are; `content: null` clears. */
export interface EditMessageBody {
  content?: string | null;
  flags?: number;
  allowedMentions?: AllowedMentions;
  embeds?: Fields[];
  /** `null` in the request clears them (parsed as none). */
  components?: ParsedComponents;
}

/** `v2`: the message is, or the edit makes it, a Components V2 message (its components are checked as such). */
export function parseEditMessage(body: unknown, v2: boolean): Parsed<EditMessageBody> {
  const issues: FormIssue[] = [];
  const fields = dictBody(body, issues);
  let content: string | null | undefined;
  if (fields.content === null) content = null;
  else if (fields.content !== undefined) {
    content = readString(fields.content, ['content'], issues, { max: MAX_CONTENT_CHARS });
  }
  const flags = readFlags(fields.flags, ['flags'], issues);
  const allowedMentions = readAllowedMentions(fields.allowed_mentions, issues);
  const embeds = fields.embeds === null ? [] : readEmbeds(fields.embeds, issues);
  const becomesV2 = v2 || ((flags ?? 0) & IS_COMPONENTS_V2) !== 0;
  const components = readComponents(fields.components, becomesV2, issues);
  return finish(issues, {
    ...(content === undefined ? {} : { content }),
    ...(components === undefined ? {} : { components }),
    ...(flags === undefined ? {} : { flags }),
    ...(allowedMentions ? { allowedMentions } : {}),
    ...(embeds === undefined ? {} : { embeds }),
  });
}

/** Start Thread from Message (`POST /channels/{c}/messages/{m}/threads`). */
export interface StartThreadBody {
  name: string;
  autoArchiveDuration: number;
}

export function parseStartThread(body: unknown): Parsed<StartThreadBody> {
  const issues: FormIssue[] = [];
  const fields = dictBody(body, issues);
  let name = '';
  if (fields.name === undefined || fields.name === null) issues.push(formIssue.required(['name']));
  else name = readString(fields.name, ['name'], issues, { min: 1, max: MAX_THREAD_NAME_CHARS }) ?? '';
  let autoArchiveDuration = 4320;
  if (fields.auto_archive_duration !== undefined && fields.auto_archive_duration !== null) {
    if (AUTO_ARCHIVE_DURATIONS.includes(fields.auto_archive_duration as 60)) {
      autoArchiveDuration = fields.auto_archive_duration as number;
    } else issues.push(formIssue.notInEnum(['auto_archive_duration'], fields.auto_archive_duration));
  }
  return finish(issues, { name, autoArchiveDuration });
}

/** Modify Channel on a thread (`PATCH /channels/{thread}`): the fields the emulator models. */
export interface ModifyThreadBody {
  archived?: boolean;
  name?: string;
}

export function parseModifyThread(body: unknown): Parsed<ModifyThreadBody> {
  const issues: FormIssue[] = [];
  const fields = dictBody(body, issues);
  const archived = readBoolean(fields.archived, ['archived'], issues);
  const name =
    fields.name === undefined
      ? undefined
      : readString(fields.name, ['name'], issues, { min: 1, max: MAX_THREAD_NAME_CHARS });
  return finish(issues, {
    ...(archived === undefined ? {} : { archived }),
    ...(name === undefined ? {} : { name }),
  });
}

/** Create DM (`POST /users/@me/channels`). */
export function parseCreateDm(body: unknown): Parsed<{ recipientId: string }> {
  const issues: FormIssue[] = [];
  const fields = dictBody(body, issues);
  const recipientId = fields.recipient_id === undefined ? '' : String(fields.recipient_id);
  if (fields.recipient_id === undefined) issues.push(formIssue.required(['recipient_id']));
  else if (!isSnowflake(recipientId))
    issues.push(formIssue.notSnowflake(['recipient_id'], fields.recipient_id));
  return finish(issues, { recipientId });
}
