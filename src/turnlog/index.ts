export {
  condenseTurnLog,
  DEFAULT_MAX_LOG_MESSAGE_CHARS,
  droppedMarker,
  MIN_LOG_MESSAGE_CHARS,
  ROLLOVER_MARKER,
  resolveCondenseOpts,
  TRUNCATION_CAPS,
} from './condense.js';
export {
  DEFAULT_MAX_TOOL_PREVIEW,
  describeToolCall,
  formatClockTime,
  formatTurnLogEntry,
  MAX_INDENT_DEPTH,
  MIN_TOOL_PREVIEW,
  renderEntryLine,
} from './format.js';
export {
  appendEntry,
  createTurnLog,
  messageEntryCount,
  renderTurnLog,
  type SealedMessage,
  startNextMessage,
  type TurnLogState,
  turnLogFromEntries,
} from './log.js';
export { cutGraphemes, TRUNCATION_SUFFIX, truncateGraphemes } from './truncate.js';
export type * from './types.js';
export { CONDENSE_STRATEGIES } from './types.js';
