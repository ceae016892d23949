export type * from './types.js';
export { CONDENSE_STRATEGIES } from './types.js';
