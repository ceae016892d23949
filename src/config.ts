/**
 * The turnlog configuration (CONTRACTS.md §3), validated by zod. Every key
 * has a default, so `{}` is a valid config; `resolveConfig` returns the
 * fully-defaulted form the runtime reads.
 */
import { z } from 'zod';
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
    maxLogMessageChars: z.number().int().min(200).default(3500),
    editDebounceMs: z.number().int().min(0).default(1000),
    condenseStrategy: z.enum(CONDENSE_STRATEGIES as [string, ...string[]]).default('rollover'),
  })
  .strict();

export const visibilitySchema = z
  .object({
    threads: z.boolean().default(true),
    threadLog: threadLogSchema.default(threadLogSchema.parse({})),
    filters: filtersSchema.default({}),
    /** Post the final answer in the turn's thread instead of top-level. */
    finalReplyInThread: z.boolean().default(false),
    /** IANA time zone of the `HH:MM:SS` stamps; default the process's. */
    timeZone: z.string().optional(),
  })
  .strict();

export const spaceConfigSchema = z
  .object({
    threadsDisabled: z.boolean().optional(),
    dm: z.boolean().optional(),
  })
  .strict();

export const budgetConfigSchema = z
  .object({
    ratePerMinute: z.number().positive().optional(),
    reserveFraction: z.number().min(0).max(1).optional(),
    liveWindowMs: z.number().int().positive().optional(),
    channelSpacingMs: z.number().int().min(0).optional(),
  })
  .strict();

export const runtimeSchema = z
  .object({
    /** Recent inbound messages kept per space to anchor turns. */
    anchorCapacity: z.number().int().min(1).default(50),
    /** Restarts of a crashed turn before its log is degraded to top-level. */
    maxTurnRestarts: z.number().int().min(0).default(3),
    /** Wait before the one retry of a transiently failed edit. */
    editRetryMs: z.number().int().min(0).default(500),
    /** Give up a terminal frame after this many failed sends. */
    terminalAttempts: z.number().int().min(1).default(10),
  })
  .strict();

export const turnlogConfigSchema = z
  .object({
    visibility: visibilitySchema.default(visibilitySchema.parse({})),
    spaces: z.record(z.string(), spaceConfigSchema).default({}),
    budgets: z.partialRecord(z.enum(['gchat', 'slack', 'discord']), budgetConfigSchema).default({}),
    runtime: runtimeSchema.default(runtimeSchema.parse({})),
  })
  .loose();

export type TurnlogConfigInput = z.input<typeof turnlogConfigSchema>;
export type TurnlogConfig = z.output<typeof turnlogConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Validates and defaults a config; the error names every bad key and what was expected. */
export function resolveConfig(input: unknown = {}): TurnlogConfig {
  const result = turnlogConfigSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  throw new ConfigError(`invalid turnlog config:\n  ${lines.join('\n  ')}`);
}
