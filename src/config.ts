/**
 * The turnlog configuration (docs/cli.md), validated by zod. Every key
 * has a default, so `{}` is a valid config; `resolveConfig` returns the
 * fully-defaulted form the runtime reads.
 */
import { z } from 'zod';
import { ConfigError, PlatformStartupError } from './config-error.js';
import { unknownKeyLines } from './config-keys.js';
import { ENV_REFERENCE, secretSchema } from './registry/config-schemas.js';
import type { PlatformRegistry } from './registry/registry.js';
import { validateRoutingFilters } from './routing/route.js';
import { CONDENSE_STRATEGIES } from './turnlog/types.js';

const destinationKind = z.enum(['drop', 'top-level', 'thread-log', 'thread-message']);

export const filtersSchema = z
  .object({
    verbose: z.boolean().optional(),
    user: z.boolean().optional(),
    subagentStatus: z.boolean().optional(),
    destinations: z.record(z.string(), destinationKind).optional(),
  })
  .strict()
  .superRefine((filters, ctx) => {
    try {
      validateRoutingFilters(filters);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^filters\./, '') });
    }
  });

export const threadLogSchema = z
  .object({
    maxToolPreview: z.number().int().min(20).default(400),
    maxLogMessageChars: z.number().int().min(200).default(7000),
    editDebounceMs: z.number().int().min(0).default(1000),
    condenseStrategy: z.enum(CONDENSE_STRATEGIES as [string, ...string[]]).default('rollover'),
  })
  .strict();

export const visibilitySchema = z
  .object({
    threads: z.boolean().default(true),
    threadLog: threadLogSchema.default(threadLogSchema.parse({})),
    filters: filtersSchema.default({}),
    finalReplyInThread: z
      .boolean()
      .default(false)
      .describe("Post the final answer in the turn's thread instead of top-level."),
    jobs: z
      .enum(['header', 'top-level'])
      .default('header')
      .describe(
        'Proactive turns (turn_started with a title and no root): header posts a top-level 🕒 <title> and threads the log under it; top-level posts the log top-level.',
      ),
    stopButton: z
      .boolean()
      .default(false)
      .describe(
        'A Stop button on the live log; a click becomes a stop action and the log shows "stopping…".',
      ),
    reactions: z
      .boolean()
      .default(true)
      .describe(
        "Reactions on the person's message (and adopted ones): 👀 while the turn runs, then ✅ ok, ❌ error or ⏹️ stopped, the 👀 removed. Advisory writes: never delay a frame or answer.",
      ),
    timeZone: z.string().optional().describe("IANA time zone of the HH:MM:SS stamps; default the process's."),
  })
  .strict();

export const spaceConfigSchema = z
  .object({
    threadsDisabled: z.boolean().optional(),
    dm: z.boolean().optional(),
    approvers: z
      .array(z.string().min(1))
      .optional()
      .describe('Platform user ids who may decide any turn of this space, besides actions.approvers.'),
  })
  .strict();

export const budgetConfigSchema = z
  .object({
    ratePerMinute: z.number().positive().optional(),
    reserveFraction: z.number().min(0).max(1).optional(),
    liveWindowMs: z.number().int().positive().optional(),
    channelSpacingMs: z.number().int().min(0).optional(),
    marginFraction: z
      .number()
      .min(0)
      .lt(1)
      .optional()
      .describe("Share of the platform's limits left unused (clock skew, writes not counted). Default 0.1."),
  })
  .strict();

export const runtimeSchema = z
  .object({
    anchorCapacity: z
      .number()
      .int()
      .min(1)
      .default(50)
      .describe('Recent inbound messages kept per space to anchor turns.'),
    maxTurnRestarts: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe('Restarts of a crashed turn before its log is degraded to top-level.'),
    editRetryMs: z
      .number()
      .int()
      .min(0)
      .default(500)
      .describe('Wait before the one retry of a transiently failed edit.'),
    terminalAttempts: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Give up a terminal frame after this many failed sends.'),
  })
  .strict();

export const ingestSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1').describe('Address the ingest API listens on.'),
    port: z.number().int().min(0).max(65_535).default(8787).describe('Port (0: any free port).'),
    token: secretSchema
      .optional()
      .describe(
        'Bearer token required on /v1/*; required when host is not loopback. A secret, or "env:NAME".',
      ),
    bodyLimitBytes: z
      .number()
      .int()
      .positive()
      .default(1_048_576)
      .describe('Largest POST /v1/events body; larger ones are answered 413.'),
    maxPendingBytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024)
      .describe(
        'POST /v1/events bodies held at once (read, queued, awaiting commit); past it a new body gets 503 with Retry-After.',
      ),
    shutdownTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('On SIGTERM/SIGINT, how long flushing the live turns may take before the process exits.'),
    headersTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('A client that has not sent its request headers within this time is cut (slow clients).'),
    bodyTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(30_000)
      .describe('A client that has not sent its whole request within this time is cut (slow clients).'),
    allowedHosts: z
      .array(z.string().regex(/^[^\s/@]+$/, 'a host name, with or without :port'))
      .default([])
      .describe(
        'Host header values this serve answers to besides the loopback names and ingest.host (a name behind a proxy, a public name for the platform intakes); others get 421. "name" matches any port, "name:port" that port.',
      ),
  })
  .strict();

export const storeSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .default(':memory:')
      .describe('SQLite database file, or ":memory:" (nothing survives a restart).'),
    url: z
      .string()
      .regex(/^(postgres(ql)?:\/\/|env:)/, 'a postgres://user@host:port/db URL, or "env:NAME"')
      .optional()
      .describe(
        'The shared Postgres store, instead of path (README, "Running several instances"): every serve with the same url serves the same app. Its tables live in the schema "turnlog". May be "env:NAME" (it may hold a password).',
      ),
  })
  .strict()
  // With url, path means nothing: it is left out (a config giving both is refused, storeConflicts).
  .transform((store): { path?: string; url?: string } =>
    store.url === undefined ? { path: store.path } : { url: store.url },
  );

/** `store.path` and `store.url` name two different stores: a config giving both is refused. */
function storeConflicts(input: unknown): string[] {
  const store = (input as { store?: unknown } | null | undefined)?.store;
  if (store === null || typeof store !== 'object') return [];
  return 'path' in store && 'url' in store
    ? ['store: give either path (the SQLite file) or url (the shared Postgres store), not both']
    : [];
}

/** `cluster` (docs/http-api.md (several instances)): several serve processes on one shared store. */
export const clusterSchema = z
  .object({
    redisUrl: z
      .string()
      .regex(/^rediss?:\/\/[^\s]+$/, 'a redis:// or rediss:// URL')
      .optional()
      .describe(
        'The Redis every process of this app shares its rate budget through (issue 23.5); unset, the budget is this process’s alone.',
      ),
    instanceId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('This process in the cluster; default <hostname>:<pid>.'),
    leaseMs: z
      .number()
      .int()
      .min(300)
      .max(600_000)
      .default(10_000)
      .describe("How long a space's lease lasts unrenewed: a dead owner's spaces move within it."),
  })
  .strict();

/**
 * `platforms.<id>`, before a registry is known: one object per platform id.
 * `platformsSchemaFor(registry)` checks each against its descriptor.
 */
export const platformsSchema = z.record(z.string(), z.record(z.string(), z.unknown()).optional());

/**
 * `platforms.<id>`: each registered platform's own config schema (its
 * descriptor's `configSchema`); an unknown platform is refused by name.
 */
export function platformsSchemaFor(registry: PlatformRegistry) {
  return z
    .object(
      Object.fromEntries(
        registry.descriptors.map((descriptor) => [
          descriptor.id,
          (descriptor.configSchema as z.ZodType<Record<string, unknown>>).optional(),
        ]),
      ) as Record<string, z.ZodOptional<z.ZodType<Record<string, unknown>>>>,
    )
    .strict();
}

/** `actions.webhook`: push each action to the host, signed (docs/http-api.md, "Actions"). */
export const actionsSchema = z
  .object({
    webhook: z
      .object({
        url: z
          .url({ protocol: /^https?$/, error: 'an http(s) URL of the host that takes the actions' })
          .describe('Where the actions are POSTed, in cursor order, retried until a 2xx.'),
        secret: secretSchema.describe(
          'HMAC-SHA256 key of the X-Turnlog-Signature header. A secret, or "env:NAME".',
        ),
      })
      .strict()
      .optional()
      .describe('Push people’s actions to the host (besides GET /v1/actions).'),
    deciders: z
      .enum(['requester+approvers', 'anyone'])
      .default('requester+approvers')
      .describe(
        'Who may press Approve/Reject, a question’s options and Stop: the turn’s requester and the approvers, or anyone.',
      ),
    approvers: z
      .array(z.string().min(1))
      .default([])
      .describe('Platform user ids (users/123, U0123ABCD, a Discord snowflake) who may decide any turn.'),
  })
  .strict();

/** `runs`: the run page (docs/http-api.md, "The run page"). */
export const runsSchema = z
  .object({
    publicUrl: z
      .url({ protocol: /^https?$/, error: 'an http(s) origin people reach `turnlog serve` at' })
      .optional()
      .describe('The origin people reach serve at; set, it turns on the run page and the "Full log" link.'),
    retentionDays: z
      .number()
      .positive()
      .default(7)
      .describe("How long a finished turn's run record and its page link are kept, in days."),
  })
  .strict();

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const logSchema = z
  .object({
    level: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe('pino level: lifecycle at info, rejected lines at warn, one line per request at debug.'),
  })
  .strict();

export const turnlogConfigSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    visibility: visibilitySchema
      .default(visibilitySchema.parse({}))
      .describe('What the activity log shows and where (threads, the log message, filters).'),
    spaces: z
      .record(z.string(), spaceConfigSchema)
      .default({})
      .describe('Per-space settings, keyed by the platform-prefixed space (gchat:spaces/AAAA).'),
    budgets: z
      .record(z.string(), budgetConfigSchema)
      .default({})
      .describe("Rate budgets per platform app; the defaults follow the platform's published limits."),
    runtime: runtimeSchema.default(runtimeSchema.parse({})).describe('Actor runtime tuning.'),
    ingest: ingestSchema.default(ingestSchema.parse({})).describe('The HTTP ingest API of `turnlog serve`.'),
    store: storeSchema
      .default(storeSchema.parse({}))
      .describe('Where turns, anchors and dead letters persist.'),
    cluster: clusterSchema
      .default(clusterSchema.parse({}))
      .describe(
        'Several serve processes on one shared store (store.url); docs/http-api.md (several instances).',
      ),
    platforms: platformsSchema
      .default({})
      .describe('The chat platforms `turnlog serve` posts to; only the configured ones get a surface.'),
    log: logSchema.default(logSchema.parse({})).describe('Structured logs (pino, on stderr).'),
    actions: actionsSchema
      .default(actionsSchema.parse({}))
      .describe('What people do in the chat, delivered to the agent host.'),
    runs: runsSchema
      .default(runsSchema.parse({}))
      .describe('The run page: each turn’s full record, live, behind a capability link.'),
  })
  // Strict at every level: a misspelt section would otherwise start serve without it (issue 22.8).
  .strict();

export type TurnlogConfigInput = z.input<typeof turnlogConfigSchema>;
export type TurnlogConfig = z.output<typeof turnlogConfigSchema>;

export { apiUrlSchema, secretSchema } from './registry/config-schemas.js';
export { ConfigError, PlatformStartupError };

/**
 * The config schema with `platforms.<id>` and `budgets.<id>` checked against
 * the registry's platforms (built once per registry).
 */
const schemaByRegistry = new WeakMap<PlatformRegistry, typeof turnlogConfigSchema>();
export function turnlogConfigSchemaFor(registry: PlatformRegistry): typeof turnlogConfigSchema {
  let schema = schemaByRegistry.get(registry);
  if (schema === undefined) {
    const ids = registry.ids as [string, ...string[]];
    schema = turnlogConfigSchema.extend({
      platforms: platformsSchemaFor(registry)
        .default({})
        .describe(turnlogConfigSchema.shape.platforms.description ?? ''),
      budgets: z
        .partialRecord(z.enum(ids), budgetConfigSchema)
        .default({})
        .describe(turnlogConfigSchema.shape.budgets.description ?? ''),
    }) as unknown as typeof turnlogConfigSchema;
    schemaByRegistry.set(registry, schema);
  }
  return schema;
}

/**
 * Validates and defaults a config; the error names every bad key and what
 * was expected. With `registry`, each `platforms.<id>` section is checked
 * against its descriptor's schema and an unknown platform is refused;
 * without one (no platform known yet) only their shape is.
 */
export function resolveConfig(input: unknown = {}, registry?: PlatformRegistry): TurnlogConfig {
  const schema = registry === undefined ? turnlogConfigSchema : turnlogConfigSchemaFor(registry);
  const result = schema.safeParse(input ?? {});
  const conflicts = storeConflicts(input);
  if (result.success && conflicts.length === 0) return result.data;
  const lines = (result.success ? [] : result.error.issues).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return unknownKeyLines(schema, issue.path, issue.keys);
    const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return [`${path}: ${issue.message}`];
  });
  lines.push(...conflicts);
  throw new ConfigError(`invalid turnlog config:\n  ${lines.join('\n  ')}`);
}

/** Where secrets may be given as `"env:NAME"`: the ingest token, the store's url, the webhook secret and each platform's `secretKeys`. */
const secretPaths = (registry: PlatformRegistry | undefined): readonly (readonly string[])[] => [
  ['ingest', 'token'],
  ['store', 'url'],
  ['actions', 'webhook', 'secret'],
  ...(registry?.descriptors ?? []).flatMap((descriptor) =>
    (descriptor.secretKeys ?? []).map((key) => ['platforms', descriptor.id, key]),
  ),
];

/**
 * Replaces every `"env:NAME"` secret with the variable's value. A variable
 * that is unset or empty is an error naming the key and the variable.
 */
export function resolveConfigSecrets(
  config: TurnlogConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
  registry?: PlatformRegistry,
): TurnlogConfig {
  const resolved = structuredClone(config);
  const problems: string[] = [];
  for (const path of secretPaths(registry)) {
    const parent = path
      .slice(0, -1)
      .reduce<Record<string, unknown> | undefined>(
        (at, key) => at?.[key] as Record<string, unknown> | undefined,
        resolved as unknown as Record<string, unknown>,
      );
    const key = path[path.length - 1] as string;
    const value = parent?.[key];
    if (parent === undefined || typeof value !== 'string') continue;
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name === undefined) continue;
    const fromEnv = env[name];
    if (fromEnv === undefined || fromEnv === '') {
      problems.push(
        `${path.join('.')}: environment variable ${name} is ${fromEnv === undefined ? 'not set' : 'empty'}`,
      );
    } else {
      parent[key] = fromEnv;
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid turnlog config:\n  ${problems.join('\n  ')}`);
  return resolved;
}

/** `resolveConfig` then `resolveConfigSecrets`: what `turnlog serve` runs on its config file. */
export function loadConfig(
  input: unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
  registry?: PlatformRegistry,
): TurnlogConfig {
  return resolveConfigSecrets(resolveConfig(input, registry), env, registry);
}

/**
 * The JSON Schema of the config file (for editors: `"$schema": "./docs/config.schema.json"`),
 * with `platforms.<id>` of the registry's platforms.
 */
export function configJsonSchema(registry?: PlatformRegistry): Record<string, unknown> {
  const schema = registry === undefined ? turnlogConfigSchema : turnlogConfigSchemaFor(registry);
  return {
    ...z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }),
    title: 'turnlog config',
    description:
      'The configuration of `turnlog serve --config FILE` (docs/cli.md). Every key has a default except `platforms`: turnlog serve needs at least one platform.',
  };
}
