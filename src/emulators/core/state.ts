/**
 * One emulator's state and its in-process API: what the `/_emulator/*`
 * endpoints do, callable directly from tests.
 */
import { z } from 'zod';
import type { EmulatedMessage, FaultRule, LimitRule, Platform, RecordedCall } from '../types.js';
import { messageView } from './card-view.js';
import { describeZodError } from './describe-zod-error.js';
import { createFaultInjector, EmulatorInputError, type FaultInjector } from './faults.js';
import { createMessageStore } from './message-store.js';
import type { HandlerContext, InboundInput, InboundResult, PlatformHandler } from './platform-handler.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';
import { type CallRecorder, createCallRecorder } from './recorder.js';

export interface EmulatorStateOptions {
  platform: Platform;
  handler: PlatformHandler;
  /** The platform's default limits (docs/emulators.md); `limits()` overrides them per op+scope. */
  defaults: readonly LimitRule[];
  /** Epoch ms; inject a simulated clock to drive windows without sleeping. Default `Date.now`. */
  now?: () => number;
}

export interface EmulatorState {
  readonly platform: Platform;
  readonly handler: PlatformHandler;
  /** Store and clock, as handed to the platform handler. */
  readonly context: HandlerContext;
  readonly recorder: CallRecorder;
  readonly faultInjector: FaultInjector;
  readonly limiter: RateLimiter;
  /** `GET /_emulator/calls[?since=seq]` */
  calls(since?: number): RecordedCall[];
  /** `GET /_emulator/messages?space=…` */
  messages(space: string): EmulatedMessage[];
  /** `POST /_emulator/faults`: appends rules; returns those in force. Throws EmulatorInputError naming a bad field. */
  faults(rules: FaultRule[]): FaultRule[];
  /** `POST /_emulator/limits` (with rules: replaces that op+scope) / `GET` (without); returns the rules in force. */
  limits(rules?: LimitRule[]): LimitRule[];
  /** `POST /_emulator/inbound`: a person posts a message (recorded as op `inbound`, not notifying). */
  inbound(input: InboundInput): InboundResult;
  /** `POST /_emulator/delete`: a person deletes a message; a later edit gets the platform's not-found. */
  deleteMessage(messageId: string): void;
  /** `POST /_emulator/reset`: clears calls, messages, faults and limit overrides. */
  reset(): void;
}

export const inboundInputSchema = z
  .object({
    space: z.string().min(1),
    text: z.string(),
    threadId: z.string().min(1).optional(),
    user: z.string().min(1).optional(),
  })
  .strict();

export function createEmulatorState(opts: EmulatorStateOptions): EmulatorState {
  const now = opts.now ?? Date.now;
  const recorder = createCallRecorder(now);
  const faultInjector = createFaultInjector();
  const limiter = createRateLimiter(opts.defaults, now);
  const context: HandlerContext = { platform: opts.platform, store: createMessageStore(now), now };

  return {
    platform: opts.platform,
    handler: opts.handler,
    context,
    recorder,
    faultInjector,
    limiter,
    calls: (since) => recorder.list(since),
    messages: (space) =>
      context.store
        .inSpace(space)
        .map((message) => messageView(message, opts.handler.messageContent?.(message))),
    faults(rules) {
      faultInjector.add(rules);
      return faultInjector.list();
    },
    limits: (rules) => (rules === undefined ? limiter.rules() : limiter.override(rules)),
    inbound(input) {
      const parsed = inboundInputSchema.safeParse(input);
      if (!parsed.success)
        throw new EmulatorInputError(`bad inbound message: ${describeZodError(parsed.error)}`);
      const result = opts.handler.inbound(parsed.data, context);
      recorder.record({
        method: 'POST',
        path: '/_emulator/inbound',
        op: 'inbound',
        status: 200,
        space: parsed.data.space,
        thread: context.store.get(result.messageId)?.thread ?? null,
        messageId: result.messageId,
        text: parsed.data.text,
        // A person's own message: nothing the app did notifies anyone.
        notifies: false,
        ...(parsed.data.user === undefined ? {} : { details: { user: parsed.data.user } }),
      });
      return result;
    },
    deleteMessage(messageId) {
      const message = context.store.get(messageId);
      if (!message) throw new EmulatorInputError(`no message ${JSON.stringify(messageId)} to delete`, 404);
      context.store.markDeleted(messageId);
      recorder.record({
        method: 'POST',
        path: '/_emulator/delete',
        op: 'delete',
        status: 200,
        space: message.space,
        thread: message.thread,
        messageId,
        details: { by: 'person' },
      });
    },
    reset() {
      recorder.clear();
      context.store.clear();
      faultInjector.clear();
      limiter.reset();
      opts.handler.reset?.();
    },
  };
}
