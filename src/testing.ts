/** turnlog/testing: tools for people testing their setup (CONTRACTS.md §5). */

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
export {
  createMemorySurface,
  MEMORY_SURFACE_CAPABILITIES,
  type MemorySurface,
  type MemorySurfaceOptions,
} from './surfaces/memory.js';
export {
  type BudgetDriver,
  type BudgetTraceEntry,
  checkBudgetTrace,
  createBudgetDriver,
  maxEditsInWindow,
  transitionKey,
} from './testing/budget-driver.js';
export { type BudgetLoadOptions, type BudgetLoadReceipt, simulateBudgetLoad } from './testing/budget-load.js';
export {
  type BudgetCommand,
  type BudgetModelSnapshot,
  type BudgetReplay,
  budgetMachineTransitionKeys,
  budgetModelCommands,
  budgetModelInput,
  budgetModelPaths,
  createBudgetModelLogic,
  replayBudgetCommands,
  serializeBudgetModelState,
} from './testing/budget-model.js';
export {
  type CallResult,
  createTurnDriver,
  createTurnDriverFactory,
  MODEL_HEADER,
  type TurnDriver,
  type TurnDriverOptions,
  type TurnStart,
  turnTransitionKey,
} from './testing/turn-driver.js';
export {
  checkFinishedTurn,
  checkTurnStep,
  type FinishedTurn,
  type TurnStep,
  turnModelEntryTag,
} from './testing/turn-invariants.js';
export {
  createTurnModelLogic,
  createTurnReplayer,
  describeTurnCommands,
  replayTurnCommands,
  resolveTurnModelConfig,
  runTurnModel,
  serializeTurnModelState,
  type TurnCommand,
  type TurnModelConfig,
  type TurnModelExercised,
  type TurnModelFailure,
  type TurnModelOptions,
  type TurnModelResult,
  turnMachineStateIds,
  turnMachineTransitionKeys,
  turnModelEntry,
  turnModelGraph,
  turnModelSettings,
  turnModelSituation,
  turnRolloverTransitionKeys,
  turnTransitionsNotReachable,
} from './testing/turn-model.js';
