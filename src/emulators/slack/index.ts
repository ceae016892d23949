/**
 * The Slack emulator: a loopback server speaking the Web API subset turnlog
 * uses (auth.test, conversations.info, chat.postMessage, chat.update,
 * chat.delete, reactions.add, assistant.threads.setStatus), Slack's errors and rate limits, and the
 * inspection API every emulator serves.
 */
export { createSlackHandler, type SlackHandlerOptions } from './handler.js';
export { SLACK_DEFAULT_LIMITS } from './limits.js';
export { type SlackEmulatorOptions, startSlackEmulator } from './server.js';
