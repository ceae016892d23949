/**
 * Where each platform's spec comes from (an npm package, pinned in
 * package.json) and what of it the suite reads, with a fingerprint of each
 * checked operation (its schemas and every definition they reach), so an
 * update can say which operations changed, not only which files.
 * test/fixtures/specs/manifest.json records them; scripts/specs.ts compares.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDiscordSpec } from './discord-spec.js';
import { chatClientTypes, loadGchatSpec } from './gchat-spec.js';
import { loadSlackSpec } from './slack-spec.js';
import { createConverter, type JsonSchema, readDeclarations } from './ts-schema.js';

export const MANIFEST_FILE = fileURLToPath(new URL('../../fixtures/specs/manifest.json', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));

export interface SourceRecord {
  package: string;
  version: string;
  license: string;
  /** What the package says it is generated from. */
  upstream: string;
  /** Path in the package → sha256 of the file. */
  files: Record<string, string>;
  /** Operation the suite checks → sha256 of its schemas and the definitions they reach. */
  operations: Record<string, string>;
}

export type Manifest = Record<'discord' | 'gchat' | 'slack' | 'slackBolt' | 'slackTypes', SourceRecord>;

/** The operations the conformance suite records and checks, per platform. */
export const CHECKED = {
  discord: [
    'create_message',
    'update_message',
    'delete_message',
    'create_thread_from_message',
    'trigger_typing_indicator',
    'add_my_message_reaction',
  ],
  gchat: ['spaces.messages.create', 'spaces.messages.patch', 'spaces.messages.get', 'spaces.messages.delete'],
  slack: [
    'chat.postMessage',
    'chat.update',
    'chat.delete',
    'reactions.add',
    'assistant.threads.setStatus',
    'auth.test',
  ],
} as const;

/** The type files test/conformance/intake.test.ts reads (paths under node_modules). */
export const SLACK_BOLT_FILES = [
  '@slack/bolt/dist/types/events/index.d.ts',
  '@slack/bolt/dist/types/utilities.d.ts',
  '@slack/bolt/dist/types/actions/block-action.d.ts',
];
export const SLACK_TYPES_FILES = ['@slack/types/dist/events/message.d.ts'];

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** sha256 of the schemas and every definition reachable from them through `#/$defs/` refs. */
export function fingerprint(schemas: unknown[], defs: Record<string, JsonSchema>): string {
  const reached = new Map<string, JsonSchema>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
          const name = inner.slice('#/$defs/'.length);
          if (!reached.has(name) && defs[name] !== undefined) {
            reached.set(name, defs[name]);
            visit(defs[name]);
          }
        } else visit(inner);
      }
    }
  };
  visit(schemas);
  const sorted = [...reached].sort(([a], [b]) => a.localeCompare(b));
  return sha256(JSON.stringify([schemas, sorted]));
}

function packageFacts(name: string, files: string[], upstream: string) {
  const dir = join(NODE_MODULES, name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    license: string;
  };
  return {
    package: name,
    version: pkg.version,
    license: pkg.license,
    upstream,
    files: Object.fromEntries(files.map((f) => [f, sha256(readFileSync(join(dir, f)))])),
  };
}

/** What is installed now, in the manifest's form. */
export async function installedSources(): Promise<Manifest> {
  const discord = await loadDiscordSpec();
  const discordOps: Record<string, string> = {};
  for (const op of discord.operations) {
    if (op.operationId && (CHECKED.discord as readonly string[]).includes(op.operationId))
      discordOps[op.operationId] = fingerprint(
        [op.pathParams, op.query, op.requestBody ?? null, op.responses],
        discord.defs,
      );
  }
  const gchat = loadGchatSpec();
  const gchatOps: Record<string, string> = {};
  for (const m of gchat.methods) {
    if ((CHECKED.gchat as readonly string[]).includes(m.id))
      gchatOps[m.id] = fingerprint(
        [m.httpMethod, m.template, m.query, m.requestBody ?? null, m.response ?? null],
        gchat.defs,
      );
  }
  // What the emulators deliver to the app (test/conformance/intake.test.ts).
  const chatTypes = readDeclarations(chatClientTypes);
  const eventConverter = createConverter([chatTypes], undefined, { closed: true });
  gchatOps['event (Schema$DeprecatedEvent)'] = fingerprint(
    [eventConverter.refTo('Schema$DeprecatedEvent')],
    eventConverter.defs,
  );
  const intake = createConverter(
    [...SLACK_BOLT_FILES, ...SLACK_TYPES_FILES].map((f) => readDeclarations(join(NODE_MODULES, f))),
  );
  const typeFingerprint = (name: string) => fingerprint([intake.refTo(name)], intake.defs);
  const slack = loadSlackSpec();
  const slackOps: Record<string, string> = {};
  for (const id of CHECKED.slack) {
    const method = slack.methods.get(id);
    if (!method) continue;
    const { schema, defs } = slack.response(method);
    slackOps[id] = fingerprint([method.response, schema], defs);
  }
  return {
    discord: {
      ...packageFacts(
        'discord-api-spec',
        ['build/discord-api-spec.ts', 'build/discord-api-spec.zod.js', 'LICENSE'],
        'github.com/discord/discord-api-spec specs/openapi.json (OpenAPI 3.1), as types and Zod schemas',
      ),
      operations: discordOps,
    },
    gchat: {
      ...packageFacts(
        'googleapis',
        ['build/src/apis/chat/v1.d.ts', 'build/src/apis/chat/v1.js', 'LICENSE'],
        "Google Chat's discovery document (chat/v1), as a generated client",
      ),
      operations: gchatOps,
    },
    slack: {
      ...packageFacts(
        '@slack/web-api',
        [
          'dist/methods.d.ts',
          ...CHECKED.slack.map((id) => `dist/types/response/${slack.methods.get(id)?.response}.d.ts`),
          'LICENSE',
        ],
        "Slack's Web API, as the official client's methods and response types",
      ),
      operations: slackOps,
    },
    slackBolt: {
      ...packageFacts(
        '@slack/bolt',
        SLACK_BOLT_FILES.map((f) => f.slice('@slack/bolt/'.length)).concat('LICENSE'),
        "Slack's Events API and interactivity payloads, as Bolt types them",
      ),
      operations: {
        EnvelopedEvent: typeFingerprint('EnvelopedEvent'),
        BlockAction: typeFingerprint('BlockAction'),
        ButtonAction: typeFingerprint('ButtonAction'),
      },
    },
    slackTypes: {
      ...packageFacts(
        '@slack/types',
        SLACK_TYPES_FILES.map((f) => f.slice('@slack/types/'.length)).concat('LICENSE'),
        "Slack's event payloads, as the official types give them",
      ),
      operations: { GenericMessageEvent: typeFingerprint('GenericMessageEvent') },
    },
  };
}

/** Lines saying what differs between the recorded and the installed sources; empty when nothing does. */
export function compareSources(recorded: Manifest, installed: Manifest): string[] {
  const lines: string[] = [];
  for (const platform of Object.keys(installed) as (keyof Manifest)[]) {
    const was = recorded[platform];
    const now = installed[platform];
    if (!was) {
      lines.push(`${platform}: not in the manifest`);
      continue;
    }
    const at = `${platform} (${now.package})`;
    if (was.version !== now.version) lines.push(`${at}: version ${was.version} → ${now.version}`);
    if (was.license !== now.license) lines.push(`${at}: license ${was.license} → ${now.license}`);
    for (const file of new Set([...Object.keys(was.files), ...Object.keys(now.files)])) {
      if (was.files[file] === undefined) lines.push(`${at}: ${file} is new`);
      else if (now.files[file] === undefined) lines.push(`${at}: ${file} is gone`);
      else if (was.files[file] !== now.files[file]) lines.push(`${at}: ${file} changed`);
    }
    for (const op of new Set([...Object.keys(was.operations), ...Object.keys(now.operations)])) {
      if (was.operations[op] === undefined) lines.push(`${at}: operation ${op} is new`);
      else if (now.operations[op] === undefined) lines.push(`${at}: operation ${op} is gone`);
      else if (was.operations[op] !== now.operations[op]) lines.push(`${at}: operation ${op} changed`);
    }
  }
  return lines;
}
