/**
 * Fault injection (`POST /_emulator/faults`, the memory surface's `fail`):
 * the first rule that matches a call answers it with the rule's status,
 * `times` times (every time when absent).
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
    status: z.number().int().min(400).max(599),
    times: z.number().int().positive().optional(),
    retryAfterS: z.number().nonnegative().optional(),
  })
  .strict();

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
  clear(): void;
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
  return {
    add(input) {
      const parsed = parseFaultRules(input);
      rules.push(...parsed);
      return parsed;
    },
    take(target) {
      const index = rules.findIndex((rule) => matchesFault(rule, target));
      if (index < 0) return null;
      const rule = rules[index]!;
      if (rule.times !== undefined) {
        const left = rule.times - 1;
        if (left <= 0) rules.splice(index, 1);
        else rules[index] = { ...rule, times: left };
      }
      return { ...rule };
    },
    list: () => rules.map((rule) => ({ ...rule })),
    clear() {
      rules = [];
    },
  };
}
