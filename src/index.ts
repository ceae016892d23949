/**
 * turnlog: the library entry. Its exports are the public API documented in
 * docs/library.md; everything else under src/ is internal and may change.
 */

// The machines (pure definitions; createRuntime provides their implementations).
export { budgetMachine } from '../machines/budget.machine.js';
export { deliveryMachine } from '../machines/delivery.machine.js';
export { runtimeMachine } from '../machines/runtime.machine.js';
export { spaceMachine } from '../machines/space.machine.js';
export { turnMachine } from '../machines/turn.machine.js';
// People's actions for the agent host (docs/http-api.md, "Actions").
export type {
  Action,
  ActionUser,
  ClickIntake,
  IntakeEvent,
  IntakeResult,
  IntakeSink,
  MessageIntake,
  NewAction,
} from './actions/types.js';
export {
  signTurnlogPayload,
  TURNLOG_SIGNATURE_HEADER,
  type VerifySignatureOptions,
  verifyTurnlogSignature,
} from './actions/webhook.js';
// turnlog as a Paraclaw-style host's chat channel (docs/library.md, "The channel adapter").
export {
  type ChannelAdapterOptions,
  type ChannelBackend,
  ChannelDeliveryError,
  createChannelAdapter,
} from './adapter/channel-adapter.js';
export { HostWriteError } from './adapter/runtime-backend.js';
export type {
  ChannelAdapter,
  ChannelSetup,
  ConversationConfig,
  InboundContent,
  InboundMessage,
  OutboundMessage,
} from './adapter/types.js';
export type {
  ChannelLimit,
  SharedBucketSpec,
  SharedTakeClass,
  SharedTakeResult,
} from './budget/shared-bucket.js';
// Issue 23 item 5: the app's budget shared across processes (cluster.redisUrl; ioredis loads only then).
// Types only: a runtime makes its own from cluster.redisUrl (RuntimeOptions.sharedBudget to give one).
export type {
  BudgetGate,
  SharedAsk,
  SharedBudget,
  SharedBudgetLogger,
  SharedBudgetMode,
  SharedBudgetOptions,
  SharedBudgetStore,
} from './budget/shared-budget.js';
// Sending events: the HTTP and in-process clients.
export * from './client/index.js';
// The runtime and its configuration (docs/cli.md lists every key).
export { type Clock, systemClock } from './clock.js';
export {
  ConfigError,
  configJsonSchema,
  loadConfig,
  resolveConfig,
  type TurnlogConfig,
  type TurnlogConfigInput,
} from './config.js';
// Run events: parse, redact, summarize (docs/events.md).
export {
  type ExitStatus,
  type ParsedEvents,
  type ParseResult,
  parseExitPrefix,
  parseRunEvent,
  parseRunEventBatch,
  parseRunEvents,
  prepareToolOutput,
  type RejectedLine,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
  redactAndCap,
  redactRunEvent,
  redactSecrets,
  runEventSchema,
  stripControl,
  summarizeToolResult,
  TurnSequencer,
  type TurnSequencerOptions,
} from './events/index.js';
// Claude Code's stream-json → run events (what `turnlog replay --from claude-code` uses).
export {
  type ClaudeCodeTranslationOptions,
  ClaudeCodeTranslator,
  translateClaudeCode,
} from './ingest/claude-code.js';
export type {
  IntakeContext,
  PlatformCapabilities,
  PlatformDescriptor,
  PlatformIntake,
  SurfaceContext,
} from './registry/descriptor.js';
// The platform registry: the runtime is given one; each platform is its own entry
// (`turnlog/gchat`, `turnlog/slack`, `turnlog/discord`), loaded only when used.
export {
  createPlatformRegistry,
  type PlatformRegistry,
  UnknownPlatformError,
} from './registry/registry.js';
// Routing: where an event goes.
export {
  type Destination,
  type DestinationKind,
  type RoutingFilters,
  resolveSpaceRouting,
  routeEvent,
  type SpaceRoutingConfig,
} from './routing/index.js';
export {
  createRuntime,
  type IngestResult,
  type Runtime,
  type RuntimeLogger,
  type RuntimeOptions,
  type TurnView,
} from './runtime.js';
// The daemon behind `turnlog serve` (docs/http-api.md).
export type { Serve, ServeOptions, ServeShutdown } from './serve/index.js';
export { startServe } from './serve/start-lazily.js';
export {
  createMemoryStore,
  createSqliteStore,
  type SqliteStoreOptions,
  type TurnlogStore,
} from './store/index.js';
// The structured frame a post or edit carries.
export {
  type FrameAction,
  type FrameCard,
  type FrameHeadline,
  type FrameLine,
  type FrameLink,
  type FrameState,
  type LineStatus,
  plainLine,
  plainText,
  type SurfaceFrame,
} from './surfaces/frame.js';
export {
  type ChatSurface,
  type EditRequest,
  isSurfaceError,
  type PostedMessage,
  type PostRequest,
  type SurfaceCapabilities,
  SurfaceError,
  type SurfaceErrorKind,
} from './surfaces/surface.js';
// The turn log: one event → one line, lines → text that fits (docs/architecture.md).
export {
  appendEntry,
  type CondenseOpts,
  type CondenseResult,
  type CondenseStrategy,
  condenseTurnLog,
  createTurnLog,
  type FormatOpts,
  formatTurnLogEntry,
  renderEntryLine,
  renderTurnLog,
  startNextMessage,
  type TurnLogEntry,
  type TurnLogEntryKind,
  type TurnLogState,
  truncateGraphemes,
} from './turnlog/index.js';
// Live inspection of the actors (TURNLOG_INSPECT).
export { createTraceInspector, type InspectCallback } from './viz/inspect.js';
