/**
 * Fault injection (`POST /_emulator/faults`, the memory surface's `fail`):
 * the first rule that matches a call answers it with the rule's status,
 * `times` times (every time when absent). A rule may also hold the call
 * (until `release`) or delay it before it is handled, answer its status
 * after the write was applied (a lost response: `applied`), and match only
 * a seeded share of the calls (`rate`, `seed`), so a faulty run repeats.
 */
import { z } from 'zod';
import type { CallOp, FaultRule } from '../types.js';
import { describeZodError } from './describe-zod-error.js';

export const CALL_OPS = ['create', 'update', 'delete', 'thread', 'reaction', 'inbound', 'other'] as const;

export const faultRuleSchema = z
  .object({
    op: z.enum(CALL_OPS).optional(),
    method: z.string().min(1).optional(),
    path: z
      .string()
      .min(1)
      .refine(
        (path) => !isRegexLiteral(path) || compilePathPattern(path) !== null,
        'not a valid /regex/flags',
      )
      .optional(),
    status: z.number().int().min(400).max(599).optional(),
    times: z.number().int().positive().optional(),
    retryAfterS: z.number().nonnegative().optional(),
    applied: z.boolean().optional(),
    delayMs: z.number().int().positive().max(600_000).optional(),
    hold: z.boolean().optional(),
    rate: z.number().gt(0).max(1).optional(),
    seed: z.number().int().optional(),
  })
  .strict()
  .refine((rule) => rule.status !== undefined || rule.delayMs !== undefined || rule.hold === true, {
    message: 'a rule needs a status, a delayMs or hold: true',
  })
  .refine((rule) => rule.applied !== true || rule.status !== undefined, {
    message: 'applied: true needs the status answered after the write',
    path: ['applied'],
  });

export const faultRulesBodySchema = z.object({ rules: z.array(faultRuleSchema) }).strict();

/** Thrown for bad emulator input (a rule, a query, an inspection body); `status` is the HTTP answer. */
export class EmulatorInputError extends Error {
  override readonly name = 'EmulatorInputError';
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Parses rules with zod, throwing an EmulatorInputError that names the bad field. */
export function parseFaultRules(rules: unknown): FaultRule[] {
  const parsed = z.array(faultRuleSchema).safeParse(rules);
  if (!parsed.success)
    throw new EmulatorInputError(`bad fault rule: ${describeZodError(parsed.error, 'rules')}`);
  return parsed.data;
}

/** What the injector matches on: the call as the platform module classified it. */
export interface FaultTarget {
  op: CallOp;
  method: string;
  path: string;
}

export interface FaultInjector {
  /** Appends validated rules (after those already in force). Throws EmulatorInputError on a bad rule. */
  add(rules: unknown): FaultRule[];
  /** The first rule matching the call, with its `times` counted down (an exhausted rule is dropped); null when none. */
  take(target: FaultTarget): FaultRule | null;
  /** The rules in force, with what remains of their `times`. */
  list(): FaultRule[];
  /** Resolves when `release` is called (a `hold` rule's call waits on it). */
  held(): Promise<void>;
  /** Lets every held call go on; returns how many were held. */
  release(): number;
  /** How many calls are held now. */
  holding(): number;
  /** Drops the rules and releases held calls. */
  clear(): void;
}

/** A small seeded generator (mulberry32): the same seed draws the same calls. */
function seededDraws(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REGEX_FLAGS = /^[dimsuv]*$/;

/**
 * `/…/` or `/…/flags` is a regex; anything else (`/v1/spaces/A`, `chat.update`)
 * is a plain substring, so ordinary paths with slashes stay substrings.
 */
function isRegexLiteral(pattern: string): boolean {
  const close = pattern.lastIndexOf('/');
  return pattern.startsWith('/') && close > 1 && REGEX_FLAGS.test(pattern.slice(close + 1));
}

function compilePathPattern(pattern: string): RegExp | null {
  if (!isRegexLiteral(pattern)) return null;
  const close = pattern.lastIndexOf('/');
  try {
    return new RegExp(pattern.slice(1, close), pattern.slice(close + 1));
  } catch {
    return null;
  }
}

/** A rule's `path`: a `/regex/` is tested, anything else must occur as a substring. */
export function pathMatches(pattern: string, path: string): boolean {
  const regex = compilePathPattern(pattern);
  return regex ? regex.test(path) : path.includes(pattern);
}

export function matchesFault(rule: FaultRule, target: FaultTarget): boolean {
  return (
    (rule.op === undefined || rule.op === target.op) &&
    (rule.method === undefined || rule.method.toUpperCase() === target.method.toUpperCase()) &&
    (rule.path === undefined || pathMatches(rule.path, target.path))
  );
}

export function createFaultInjector(): FaultInjector {
  let rules: FaultRule[] = [];
  // A rule with a `rate` draws from its own seeded generator, so rules added later do not shift its draws.
  const draws = new WeakMap<FaultRule, () => number>();
  let waiting: (() => void)[] = [];
  const drawn = (rule: FaultRule): boolean => {
    if (rule.rate === undefined) return true;
    let draw = draws.get(rule);
    if (draw === undefined) {
      draw = seededDraws(rule.seed ?? 1);
      draws.set(rule, draw);
    }
    return draw() < rule.rate;
  };
  return {
    add(input) {
      const parsed = parseFaultRules(input);
      rules.push(...parsed);
      return parsed;
    },
    take(target) {
      const index = rules.findIndex((rule) => matchesFault(rule, target) && drawn(rule));
      if (index < 0) return null;
      const rule = rules[index]!;
      if (rule.times !== undefined) {
        const left = rule.times - 1;
        if (left <= 0) rules.splice(index, 1);
        else {
          // The counted-down rule keeps its generator.
          const kept = { ...rule, times: left };
          const draw = draws.get(rule);
          if (draw !== undefined) draws.set(kept, draw);
          rules[index] = kept;
        }
      }
      return { ...rule };
    },
    list: () => rules.map((rule) => ({ ...rule })),
    held: () => new Promise<void>((resolve) => waiting.push(resolve)),
    holding: () => waiting.length,
    release() {
      const released = waiting;
      waiting = [];
      for (const go of released) go();
      return released.length;
    },
    clear() {
      rules = [];
      this.release();
    },
  };
}
