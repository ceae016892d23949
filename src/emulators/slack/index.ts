/**
 * The Slack emulator: a loopback server speaking the Web API subset turnlog
 * uses (auth.test, conversations.info, chat.postMessage, chat.update,
 * chat.delete, reactions.add, assistant.threads.setStatus, apps.connections.open), Slack's errors and
 * rate limits, the app's events and clicks over HTTP or Socket Mode, and the inspection API every emulator serves.
 */
export { createSlackHandler, type SlackHandlerOptions } from './handler.js';
export { SLACK_DEFAULT_LIMITS } from './limits.js';
export { type SlackEmulator, type SlackEmulatorOptions, startSlackEmulator } from './server.js';
export {
  type SlackSocketModeOptions,
  SOCKET_MODE_ACK_DEADLINE_MS,
  type SocketModeView,
} from './socket-mode.js';
