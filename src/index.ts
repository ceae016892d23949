/** turnlog: the library entry (CONTRACTS.md §5). */
export * from './events/index.js';
export * from './routing/index.js';
export * from './surfaces/surface.js';
export * from './turnlog/index.js';
