/** Slack: the platform descriptor, its surface, renderer and the daemon's Bolt app. */
export {
  type SlackIdentity,
  SlackStartupError,
  startSlackApp,
  startSlackAppAs,
  verifySlackAuth,
} from './app.js';
export {
  createAssistantStatus,
  STATUS_EXPIRY_MS,
  STATUS_REFRESH_MS,
  statusDecision,
  UNSUPPORTED_STATUS_CODES,
} from './assistant-status.js';
export { SLACK_CAPABILITIES, type SlackConfig, slackConfigSchema, slackPlatform } from './descriptor.js';
export { kindOfSlackCode, REFUSED_CONTENT_CODES, toSurfaceError } from './errors.js';
export {
  clickIntakeOf,
  createSlackHttpReceiver,
  createSlackIntake,
  messageIntakeOf,
  type SlackIntake,
} from './intake.js';
export { SLACK_LIMITS } from './limits.js';
export {
  renderAck,
  renderFrame,
  renderTextOnly,
  type SlackMessage,
  type SlackRenderOptions,
} from './render.js';
export {
  createSlackSurface,
  SLACK_CHANNEL_PATTERN,
  type SlackSurface,
  type SlackSurfaceOptions,
  slackChannelOf,
} from './surface.js';
