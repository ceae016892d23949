/** turnlog: the library entry (CONTRACTS.md §5). */

// The machines (pure definitions; implementations are provided by createRuntime).
export { type BudgetMachine, type BudgetMachineContext, budgetMachine } from '../machines/budget.machine.js';
export * from '../machines/budget.protocol.js';
export {
  type DeliveryContext,
  type DeliveryInput,
  type DeliveryOutput,
  deliveryMachine,
} from '../machines/delivery.machine.js';
export { type RuntimeContext, type RuntimeEvent, runtimeMachine } from '../machines/runtime.machine.js';
export {
  type InboundAnchor,
  type SpaceContext,
  type SpaceEvent,
  type SpaceInput,
  type SpaceSettings,
  spaceMachine,
  type TurnRecord,
} from '../machines/space.machine.js';
export {
  type DeadLetter,
  type Frame,
  type LogMessageRef,
  type TurnContext,
  type TurnEvent,
  type TurnInput,
  type TurnOutcome as TurnMachineOutcome,
  type TurnSettings,
  turnMachine,
} from '../machines/turn.machine.js';
export { type BudgetConfig, type BudgetInput, budgetDefaults, resolveBudgetConfig } from './budget/config.js';
export { type BudgetImplementationsOptions, createBudgetImplementations } from './budget/implementations.js';
export * from './client/index.js';
export { type Clock, systemClock } from './clock.js';
export {
  ConfigError,
  configJsonSchema,
  LOG_LEVELS,
  loadConfig,
  resolveConfig,
  resolveConfigSecrets,
  type TurnlogConfig,
  type TurnlogConfigInput,
  turnlogConfigSchema,
} from './config.js';
export * from './events/index.js';
export {
  type ClaudeCodeTranslationOptions,
  ClaudeCodeTranslator,
  type TranslatedLine,
  translateClaudeCode,
} from './ingest/claude-code.js';
export {
  DEFAULT_MAX_LINE_LENGTH,
  type NdjsonLine,
  NdjsonLineTooLongError,
  type NdjsonReadOptions,
  openNdjsonInput,
  readNdjsonLines,
} from './ingest/ndjson.js';
export {
  type GchatCardV2,
  POLICY_DECISION_ACTION,
  renderCardFallbackText,
  renderGchatCard,
  renderGchatMessage,
  renderGchatText,
} from './platforms/gchat/render.js';
export {
  CHAT_BOT_SCOPE,
  createGchatSurface,
  GCHAT_CAPABILITIES,
  type GchatAuth,
  type GchatSurfaceOptions,
} from './platforms/gchat/surface.js';
export {
  builtinPlatforms,
  createPlatformRegistry,
  type PlatformRegistry,
  UnknownPlatformError,
} from './platforms/registry.js';
export type { PlatformCapabilities, PlatformDescriptor, SurfaceContext } from './platforms/types.js';
export { MENTION_BREAK, neutralizeBroadMentions } from './render/mentions.js';
export * from './routing/index.js';
export { createDeliveryImplementations } from './runtime/delivery.implementations.js';
export { restorable } from './runtime/restorable.js';
export { createSpaceImplementations, type SpaceImplementationDeps } from './runtime/space.implementations.js';
export {
  createTurnImplementations,
  provideTurnMachine,
  type TurnImplementationDeps,
} from './runtime/turn.implementations.js';
export {
  createRuntime,
  type IngestResult,
  type Runtime,
  type RuntimeLogger,
  type RuntimeOptions,
  spaceSettingsFor,
  type TurnView,
} from './runtime.js';
export {
  createSurfaces,
  type IngestServer,
  type IngestServerOptions,
  type Serve,
  type ServeOptions,
  type ServeShutdown,
  shutdownOnSignal,
  startIngestServer,
  startServe,
} from './serve/index.js';
export * from './store/index.js';
export {
  type FrameAction,
  type FrameCard,
  type FrameHeadline,
  type FrameLine,
  type FrameState,
  type LineStatus,
  plainLine,
  plainText,
  type SurfaceFrame,
} from './surfaces/frame.js';
export * from './surfaces/surface.js';
export * from './turnlog/index.js';
export {
  type GenerateOptions,
  type GenerateResult,
  generateVisualizations,
  type StaleReason,
} from './viz/generate.js';
export {
  createInspector,
  createTraceInspector,
  INSPECT_ENV,
  type InspectCallback,
  type InspectorOptions,
  type TraceInspector,
  type TraceLine,
} from './viz/inspect.js';
export { type MermaidOptions, machineToMermaid } from './viz/mermaid.js';
