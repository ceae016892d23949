/** turnlog/testing: tools for people testing their setup (CONTRACTS.md §5). */
export type * from './emulators/types.js';
