/**
 * The platform-neutral emulator core. A platform module (gchat, slack,
 * discord) implements a {@link PlatformHandler} and starts it with
 * {@link createEmulatorServer}:
 *
 * ```ts
 * const emulator = await createEmulatorServer({ platform: 'slack', handler: slackHandler, defaults: SLACK_LIMITS });
 * // emulator.url, emulator.state.calls(), emulator.close()
 * ```
 *
 * The core serves the inspection API (`/_emulator/*`, docs/emulators.md),
 * records every call, keeps the messages, and applies faults and rate limits
 * before the handler runs. The handler maps routes onto the store
 * (`ctx.store`), decides `notifies` and `mentions` (see
 * {@link broadMentionsFor}) and shapes answers and errors the platform's way.
 */
export { type MessageContentView, messageAsText, messageView } from './card-view.js';
export { describeZodError } from './describe-zod-error.js';
export { dispatchRequest } from './dispatch.js';
export {
  CALL_OPS,
  createFaultInjector,
  EmulatorInputError,
  type FaultInjector,
  type FaultTarget,
  faultRuleSchema,
  matchesFault,
  parseFaultRules,
  pathMatches,
} from './faults.js';
export { broadMentionsFor, detectBroadMentions } from './mentions.js';
export {
  createMessageStore,
  type MessageAuthor,
  type MessageStore,
  type NewMessage,
  type StoredMessage,
  type StoredThread,
} from './message-store.js';
export type {
  CallNotes,
  EmulatorRequest,
  ErrorKind,
  HandlerContext,
  HttpAnswer,
  InboundInput,
  InboundResult,
  PlatformHandler,
  PlatformReply,
  PlatformRoute,
  RouteContext,
} from './platform-handler.js';
export {
  createRateLimiter,
  type LimitTarget,
  type LimitVerdict,
  limitRuleSchema,
  parseLimitRules,
  type RateLimiter,
  type RateLimitStatus,
} from './rate-limiter.js';
export { type CallDescription, type CallRecorder, createCallRecorder } from './recorder.js';
export { createEmulatorServer, type EmulatorServer, type EmulatorServerOptions } from './server.js';
export { createEmulatorState, type EmulatorState, type EmulatorStateOptions } from './state.js';
export { addReaction, removeReaction, type StoredReaction } from './stored-message.js';
