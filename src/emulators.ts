/**
 * `turnlog/emulators`: the loopback emulators of Google Chat, Slack and
 * Discord, in process (docs/emulators.md). Test tooling: production code
 * never imports it.
 */
export {
  EMULATED_PLATFORMS,
  type Emulator,
  type StartEmulatorOptions,
  startEmulator,
} from './emulators/index.js';
export type * from './emulators/types.js';
