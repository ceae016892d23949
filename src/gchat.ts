/**
 * `turnlog/gchat`: Google Chat as a plug-in — its descriptor (hand it to
 * `createRuntime({platforms})`) and its surface over `googleapis`. Importing
 * this entry loads the Google SDK; `turnlog` alone does not.
 */
export { type GchatConfig, gchatConfigSchema, gchatPlatform } from './platforms/gchat/descriptor.js';
export {
  CHAT_BOT_SCOPE,
  createGchatSurface,
  type GchatAuth,
  type GchatSurfaceOptions,
} from './platforms/gchat/surface.js';
