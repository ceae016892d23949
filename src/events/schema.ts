/**
 * Run events, wire format v1 (docs/events.md).
 *
 * One JSON object per event. Unknown fields are kept (loose objects); an
 * unknown `type` is rejected. `seq` is stamped by turnlog on acceptance, so it
 * is not part of the wire format a host sends (a host-sent `seq` is ignored
 * and replaced).
 */
import { z } from 'zod';
import type { PlatformRegistry } from '../registry/registry.js';

/**
 * A platform-prefixed space (`gchat:spaces/AAAA`, `slack:C0123ABCD`): a
 * platform id, `:`, then the platform's own id. The core knows no platform
 * by name; the registry a runtime is given checks the part after the `:`.
 */
export const SPACE_PATTERN = /^[a-z][a-z0-9-]*:\S+$/;

/** A space of one of the registry's platforms, its id matching that platform's pattern. */
export function spaceSchemaFor(platforms: PlatformRegistry) {
  return z.string().superRefine((space, ctx) => {
    const problem = platforms.checkSpace(space);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** A platform-prefixed space, any platform (no registry to check the platform's own id against). */
export const spaceSchema = z
  .string()
  .regex(SPACE_PATTERN, 'a platform-prefixed space: <platform>:<its own id>, e.g. slack:C0123ABCD');

const nonEmpty = z.string().min(1, 'a non-empty string');

/** The longest `eventId` accepted. */
export const EVENT_ID_MAX_CHARS = 200;

/** Fields every event may carry. `turnId` is required per type below. */
const common = {
  space: spaceSchema,
  at: z.number().int().nonnegative().optional(),
  subagentId: nonEmpty.optional(),
  parentSubagentId: nonEmpty.optional(),
  seq: z.number().int().positive().optional(),
  /**
   * The host's unique id for this event within its turn (within the space
   * for events outside a turn). An event whose id its turn already accepted
   * is a retry: reported as a duplicate and not applied again.
   */
  eventId: nonEmpty.max(EVENT_ID_MAX_CHARS).optional(),
};
const turnScoped = { ...common, turnId: nonEmpty };
/**
 * Events a subagent emits may arrive without a `turnId` when the host failed
 * to propagate it (the reference spec's E2E test 22). They are accepted so the
 * router can send them top-level with a warning instead of losing them; they
 * can never open a thread.
 */
const maybeTurnScoped = { ...common, turnId: nonEmpty.optional() };

export const inboundEventSchema = z.looseObject({
  type: z.literal('inbound'),
  ...common,
  turnId: nonEmpty.optional(),
  messageId: nonEmpty,
  threadId: nonEmpty.optional(),
  ref: nonEmpty.optional(),
  dm: z.boolean().optional(),
});

export const turnStartedEventSchema = z.looseObject({
  type: z.literal('turn_started'),
  ...turnScoped,
  root: z.looseObject({ messageId: nonEmpty, threadId: nonEmpty.optional() }).optional(),
  rootRef: nonEmpty.optional(),
  dm: z.boolean().optional(),
  /** A proactive turn (no user message): a header `🕒 <title>` may anchor it. */
  title: z.string().optional(),
  /** The platform user id of the person who asked: who may decide its cards (src/actions/deciders.ts). */
  requestedBy: nonEmpty.optional(),
});

/**
 * Later messages of people folded into the running turn (the seed's merged
 * turns, issue 26): each is acknowledged where it is (a reaction), the log
 * says so, the answer still goes once. By id, or by `refs` (action ids or
 * `inbound` refs, looked up like `turn_started.rootRef`).
 */
export const messagesAdoptedEventSchema = z
  .looseObject({
    type: z.literal('messages_adopted'),
    ...turnScoped,
    messages: z
      .array(
        z.looseObject({ messageId: nonEmpty, threadId: nonEmpty.optional(), text: z.string().optional() }),
      )
      .optional(),
    refs: z.array(nonEmpty).optional(),
  })
  .refine((event) => (event.messages?.length ?? 0) + (event.refs?.length ?? 0) > 0, {
    message: 'messages_adopted needs at least one of messages or refs',
    path: ['messages'],
  });

export const inputEventSchema = z.looseObject({ type: z.literal('input'), ...turnScoped, text: z.string() });

export const toolCallEventSchema = z.looseObject({
  type: z.literal('tool_call'),
  ...maybeTurnScoped,
  callId: nonEmpty,
  tool: nonEmpty,
  input: z.record(z.string(), z.unknown()).optional(),
  summary: z.string().optional(),
});

export const toolResultEventSchema = z.looseObject({
  type: z.literal('tool_result'),
  ...maybeTurnScoped,
  callId: nonEmpty,
  tool: nonEmpty,
  ok: z.boolean(),
  output: z.string().optional(),
  exitCode: z.number().int().optional(),
  summary: z.string().optional(),
});

export const assistantEventSchema = z.looseObject({
  type: z.literal('assistant'),
  ...maybeTurnScoped,
  text: z.string(),
});

export const subagentEventSchema = z.looseObject({
  type: z.literal('subagent'),
  ...maybeTurnScoped,
  subagentId: nonEmpty,
  status: z.enum(['started', 'done', 'failed']),
  name: z.string().optional(),
});

export const policyRequestEventSchema = z.looseObject({
  type: z.literal('policy_request'),
  ...turnScoped,
  requestId: nonEmpty,
  command: nonEmpty,
  args: z.array(z.string()).optional(),
  title: z.string().optional(),
});

export const policyDecisionEventSchema = z.looseObject({
  type: z.literal('policy_decision'),
  ...turnScoped,
  requestId: nonEmpty,
  decision: z.enum(['approved', 'rejected']),
  command: z.string().optional(),
});

export const noteEventSchema = z.looseObject({
  type: z.literal('note'),
  ...maybeTurnScoped,
  text: z.string(),
  level: z.enum(['info', 'warn', 'error']).optional(),
});

export const commandEventSchema = z.looseObject({
  type: z.literal('command'),
  ...maybeTurnScoped,
  command: nonEmpty,
  exitCode: z.number().int().optional(),
  output: z.string().optional(),
});

export const answerEventSchema = z.looseObject({
  type: z.literal('answer'),
  ...turnScoped,
  text: z.string(),
});

/** An option of a `question`: its label, or the label with what the card shows once chosen and the value the host gets. */
export const questionOptionSchema = z.union([
  nonEmpty,
  z.looseObject({ label: nonEmpty, selectedLabel: nonEmpty.optional(), value: z.string().optional() }),
]);

/** A question for the people in the space: a card with one button per option; a choice comes back as an `answer` action. */
export const questionEventSchema = z.looseObject({
  type: z.literal('question'),
  ...turnScoped,
  questionId: nonEmpty,
  question: nonEmpty,
  title: z.string().optional(),
  options: z.array(questionOptionSchema).min(1, 'at least 1 option'),
});

export const turnEndedEventSchema = z.looseObject({
  type: z.literal('turn_ended'),
  ...turnScoped,
  outcome: z.enum(['ok', 'error', 'stopped']),
});

export const runEventSchema = z.discriminatedUnion('type', [
  inboundEventSchema,
  turnStartedEventSchema,
  inputEventSchema,
  toolCallEventSchema,
  toolResultEventSchema,
  assistantEventSchema,
  subagentEventSchema,
  policyRequestEventSchema,
  policyDecisionEventSchema,
  noteEventSchema,
  commandEventSchema,
  answerEventSchema,
  questionEventSchema,
  turnEndedEventSchema,
  messagesAdoptedEventSchema,
]);

export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
export const RUN_EVENT_TYPES = runEventSchema.options.map((o) => o.shape.type.value) as RunEventType[];

/** The event schema for a registry's platforms (none given: `runEventSchema`); built once per registry. */
const schemasFor = new WeakMap<PlatformRegistry, typeof runEventSchema>();
export function runEventSchemaFor(platforms: PlatformRegistry | undefined): typeof runEventSchema {
  if (platforms === undefined) return runEventSchema;
  let schema = schemasFor.get(platforms);
  if (schema === undefined) {
    const space = spaceSchemaFor(platforms);
    schema = z.discriminatedUnion(
      'type',
      runEventSchema.options.map((option) =>
        option.safeExtend({ space }),
      ) as unknown as typeof runEventSchema.options,
    ) as unknown as typeof runEventSchema;
    schemasFor.set(platforms, schema);
  }
  return schema;
}

export type QuestionOption = z.infer<typeof questionOptionSchema>;

/** An option as the card and the answer action use it: `value` defaults to the label, `selectedLabel` too. */
export function normalizeOption(option: QuestionOption): {
  label: string;
  selectedLabel: string;
  value: string;
} {
  if (typeof option === 'string') return { label: option, selectedLabel: option, value: option };
  return {
    label: option.label,
    selectedLabel: option.selectedLabel ?? option.label,
    value: option.value ?? option.label,
  };
}

/** The platform id of a prefixed space; an error naming the known prefixes when the registry has none for it. */
export function platformOf(space: string, platforms: PlatformRegistry): string {
  return platforms.forSpace(space).id;
}

/** The platform's own id for a space: `gchat:spaces/A` → `spaces/A`. */
export function platformSpaceId(space: string): string {
  return space.slice(space.indexOf(':') + 1);
}
