/**
 * `turnlog/slack`: Slack as a plug-in — its descriptor (hand it to
 * `createRuntime({platforms})`) and its surface over `@slack/web-api`.
 * Importing this entry loads the Slack SDK; `turnlog` alone does not.
 */
export { SlackStartupError } from './platforms/slack/app.js';
export { type SlackConfig, slackConfigSchema } from './platforms/slack/config.js';
export { slackPlatform } from './platforms/slack/descriptor.js';
export {
  createSlackSurface,
  type SlackSurface,
  type SlackSurfaceOptions,
} from './platforms/slack/surface.js';
