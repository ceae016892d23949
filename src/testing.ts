/**
 * turnlog/testing: tools for people testing their setup (docs/library.md):
 * the in-process memory surface, the loopback emulators, and the
 * model-based testing kits of the turn and budget machines.
 */

// The machines' implementation factories, for tests that run a machine alone.
export { createBudgetImplementations } from './budget/implementations.js';
export { budgetMachineInput } from './budget/machine-input.js';
export {
  DISCORD_DEFAULT_LIMITS,
  type DiscordEmulatorOptions,
  startDiscordEmulator,
} from './emulators/discord/index.js';
export {
  GCHAT_DEFAULT_LIMITS,
  type GchatEmulatorOptions,
  startGchatEmulator,
} from './emulators/gchat/index.js';
export {
  EMULATED_PLATFORMS,
  type Emulator,
  type StartEmulatorOptions,
  startEmulator,
} from './emulators/index.js';
export {
  SLACK_DEFAULT_LIMITS,
  type SlackEmulatorOptions,
  startSlackEmulator,
} from './emulators/slack/index.js';
export type * from './emulators/types.js';
// Every built-in platform at once (all three SDKs load): for tests that want the whole registry.
export { builtinPlatforms } from './platforms/all.js';
export { createSpaceImplementations } from './runtime/space.implementations.js';
export { createTurnImplementations } from './runtime/turn.implementations.js';
export { type BudgetLoadOptions, type BudgetLoadReceipt, simulateBudgetLoad } from './testing/budget-load.js';
export {
  type BudgetCommand,
  type BudgetReplay,
  budgetModelCommands,
  budgetModelInput,
  budgetModelPaths,
  replayBudgetCommands,
} from './testing/budget-model.js';
export {
  createMemorySurface,
  MEMORY_SURFACE_CAPABILITIES,
  type MemorySurface,
  type MemorySurfaceOptions,
} from './testing/memory-surface.js';
export {
  describeTurnCommands,
  replayTurnCommands,
  runTurnModel,
  type TurnCommand,
  type TurnModelConfig,
  type TurnModelFailure,
  type TurnModelOptions,
  type TurnModelResult,
  turnTransitionsNotReachable,
} from './testing/turn-model.js';
