/** turnlog clients: send run events to `turnlog serve` over HTTP, or to a runtime in process. */
export { DEFAULT_MAX_SUBAGENT_DEPTH } from './client.js';
export { DeliveryError, describeEvent, EventNotAcceptedError, type NotAcceptedKind } from './errors.js';
export { createTurnlogClient, type TurnlogClientOptions } from './http-client.js';
export { HTTP_DEFAULTS, ingestEndpoint } from './http-transport.js';
export { createInProcessClient } from './in-process-client.js';
export type {
  ClientOptions,
  DeliveryCounts,
  DeliveryReport,
  EventScope,
  InboundOptions,
  ScopeEvent,
  ScopeEventType,
  StartTurnOptions,
  SubagentScope,
  ToolResultOptions,
  TurnlogClient,
  TurnScope,
} from './types.js';
