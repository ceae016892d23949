/** Everything turnlog knows about Google Chat: its descriptor, surface and renderer. */
export { type GchatConfig, gchatConfigSchema, gchatPlatform } from './descriptor.js';
export { GCHAT_MENTION_FORMS, type GchatCardV2, POLICY_DECISION_ACTION } from './render.js';
export {
  CHAT_BOT_SCOPE,
  createGchatSurface,
  GCHAT_CAPABILITIES,
  type GchatAuth,
  type GchatSurfaceOptions,
} from './surface.js';
