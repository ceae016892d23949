export {
  DEFAULT_DESTINATIONS,
  DESTINATION_KINDS,
  resolveSpaceRouting,
  routeEvent,
  validateRoutingFilters,
} from './route.js';
export type * from './types.js';
