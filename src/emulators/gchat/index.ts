/**
 * The Google Chat emulator: the Chat API v1 subset turnlog uses, served at
 * `/v1/…` on loopback behind the core's inspection API (`/_emulator/*`).
 * See handler.ts for the routes, googleErrors.ts for the error and 429
 * shapes, gchatWorld.ts for spaces and DMs.
 */
export { GCHAT_DEFAULT_LIMITS } from './default-limits.js';
export { DM_SPACE_ID_PREFIX } from './gchat-world.js';
export { createGchatHandler, type GchatHandlerOptions } from './handler.js';
export { MAX_MESSAGE_BYTES, STRICT_MAX_TEXT_CHARS } from './message-body.js';
export { type GchatEmulatorOptions, startGchatEmulator } from './start-gchat-emulator.js';
