/** turnlog clients: send run events to `turnlog serve` over HTTP, or to a runtime in process. */
export { type ActionsOptions, type CursorRefusal, DEFAULT_ACTIONS_WAIT_S } from './actions.js';
export { DEFAULT_MAX_SUBAGENT_DEPTH } from './client.js';
export { DeliveryError, describeEvent, EventNotAcceptedError, type NotAcceptedKind } from './errors.js';
export { ActionsRequestError, actionsEndpoint } from './http-actions.js';
export { createTurnlogClient, type TurnlogClientOptions } from './http-client.js';
export { createInProcessClient } from './in-process-client.js';
export type {
  AnswerAction,
  ClientOptions,
  DecisionAction,
  DeliveryCounts,
  DeliveryReport,
  EventScope,
  InboundOptions,
  ScopeEvent,
  ScopeEventType,
  StartTurnOptions,
  StopAction,
  SubagentScope,
  ToolResultOptions,
  TurnlogClient,
  TurnScope,
} from './types.js';
