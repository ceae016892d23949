export { capText } from './cap.js';
export { stripControl } from './control.js';
export { type ExitStatus, parseExitPrefix } from './exit-prefix.js';
export {
  type ParsedEvents,
  type ParseResult,
  parseRunEvent,
  parseRunEventBatch,
  parseRunEvents,
  type RejectedLine,
} from './parse.js';
export { redactAndCap, redactSecrets } from './redact.js';
export { redactRunEvent } from './redact-event.js';
export { isRedactedMarker, REDACTED } from './redaction-marker.js';
export * from './schema.js';
export { isSecretName } from './secret-names.js';
export {
  DEFAULT_MAX_ENDED_EVENT_IDS,
  DEFAULT_MAX_ENDED_TURNS,
  DEFAULT_MAX_EVENT_IDS_PER_TURN,
  DEFAULT_MAX_SPACE_EVENT_IDS,
  type StampResult,
  type TurnOutcome,
  TurnSequencer,
  type TurnSequencerOptions,
  type TurnSequencerSnapshot,
} from './sequence.js';
export {
  formatBytes,
  prepareToolOutput,
  prepareToolResult,
  SUMMARY_MAX_CHARS,
  summarizeToolResult,
  TOOL_OUTPUT_CAP,
} from './summaries.js';
