/** Where an event goes (docs/architecture.md "Event routing"). */
export type Destination =
  | { kind: 'drop' }
  | { kind: 'top-level'; warning?: string }
  | { kind: 'thread-log' }
  | { kind: 'thread-message' };

export type DestinationKind = Destination['kind'];

/**
 * Per-type destination overrides (the reference spec's `filters`). A key is a
 * run event type; `verbose: false` hides subagent status and notes; `user`
 * shows the `input` echo when true.
 */
export interface RoutingFilters {
  verbose?: boolean;
  user?: boolean;
  subagentStatus?: boolean;
  destinations?: Partial<Record<string, DestinationKind>>;
}

export interface SpaceRoutingConfig {
  /** Global `visibility.threads` (default true). */
  threads: boolean;
  /** Per-space opt-out: wins over `threads`. */
  threadsDisabled?: boolean;
  /** A DM space: thread-log is dropped, thread-message goes top-level. */
  dm?: boolean;
  filters?: RoutingFilters;
}
