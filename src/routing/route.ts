/**
 * Where a run event goes (docs/architecture.md "Event routing",
 * "DM behavior", "Configuration"; docs/events.md). Pure.
 *
 * Resolution order:
 * 1. The turn lifecycle (`inbound`, `turn_started`, `messages_adopted`, `turn_ended`) is never
 *    routed: the runtime acts on it (records the anchor, opens, flushes and
 *    closes the turn). Always `drop`, whatever the filters say.
 * 2. `filters.destinations[type]` when set; else the `verbose` / `user` /
 *    `subagentStatus` filters; else the default table.
 * 3. A DM space: `thread-log` → `drop`, `thread-message` → `top-level`
 *    (the DM rule wins over threads being off: activity stays out of DMs).
 * 4. Threads off for the space (`threadsDisabled`) or globally
 *    (`threads: false`): `thread-log` and `thread-message` → `top-level`.
 * 5. A thread-bound event without a `turnId` cannot find its turn's thread
 *    and must never open another one (spec E2E 22): `top-level`, with a
 *    warning.
 */
import { RUN_EVENT_TYPES, type RunEvent, type RunEventType } from '../events/schema.js';
import type { Destination, DestinationKind, RoutingFilters, SpaceRoutingConfig } from './types.js';

export const DESTINATION_KINDS: readonly DestinationKind[] = [
  'drop',
  'top-level',
  'thread-log',
  'thread-message',
];

export const DEFAULT_DESTINATIONS: Readonly<Record<RunEventType, DestinationKind>> = {
  inbound: 'drop',
  turn_started: 'drop',
  // Lifecycle: the turn's log shows a line per adopted message (src/runtime/space.implementations.ts).
  messages_adopted: 'drop',
  turn_ended: 'drop',
  // Echoing the user's own text back is noise; `filters.user` shows it.
  input: 'drop',
  tool_call: 'thread-log',
  tool_result: 'thread-log',
  assistant: 'thread-log',
  subagent: 'thread-log',
  policy_decision: 'thread-log',
  note: 'thread-log',
  command: 'thread-log',
  // A card the user acts on: a message of its own in the turn's thread.
  policy_request: 'thread-message',
  question: 'thread-message',
  answer: 'top-level',
};

const LIFECYCLE: ReadonlySet<RunEventType> = new Set([
  'inbound',
  'turn_started',
  'messages_adopted',
  'turn_ended',
]);

export function routeEvent(event: RunEvent, space: SpaceRoutingConfig): Destination {
  if (LIFECYCLE.has(event.type)) return { kind: 'drop' };
  const kind = placeInSpace(filteredKind(event, space.filters ?? {}), space);
  if ((kind === 'thread-log' || kind === 'thread-message') && event.turnId === undefined) {
    return { kind: 'top-level', warning: missingTurnWarning(event) };
  }
  return { kind };
}

function filteredKind(event: RunEvent, filters: RoutingFilters): DestinationKind {
  const override = filters.destinations?.[event.type];
  if (override !== undefined) return override;
  if (event.type === 'subagent' && !(filters.subagentStatus ?? filters.verbose ?? true)) return 'drop';
  if (event.type === 'note' && (event.level ?? 'info') === 'info' && filters.verbose === false) return 'drop';
  if (event.type === 'input' && filters.user === true) return 'thread-log';
  return DEFAULT_DESTINATIONS[event.type];
}

function placeInSpace(kind: DestinationKind, space: SpaceRoutingConfig): DestinationKind {
  if (kind !== 'thread-log' && kind !== 'thread-message') return kind;
  if (space.dm === true) return kind === 'thread-log' ? 'drop' : 'top-level';
  if (space.threadsDisabled === true || !space.threads) return 'top-level';
  return kind;
}

function missingTurnWarning(event: RunEvent): string {
  const from = event.subagentId !== undefined ? ` from subagent ${event.subagentId}` : '';
  return (
    `${event.type}${from} has no turnId, so it cannot join its turn's thread; ` +
    'posted top-level instead of opening another thread (the agent host must propagate the turn id)'
  );
}

/**
 * Checks `filters.destinations`: every key a run event type other than the
 * turn lifecycle, every value a destination, and no `answer` in the thread
 * log (the answer is a message, not a log line). Returns the filters.
 */
export function validateRoutingFilters(filters: RoutingFilters): RoutingFilters {
  for (const [type, kind] of Object.entries(filters.destinations ?? {})) {
    const where = `filters.destinations.${type}`;
    if (!(RUN_EVENT_TYPES as readonly string[]).includes(type)) {
      const routable = RUN_EVENT_TYPES.filter((t) => !LIFECYCLE.has(t)).join(', ');
      throw new Error(`${where}: "${type}" is not a run event type (one of ${routable})`);
    }
    if (LIFECYCLE.has(type as RunEventType)) {
      throw new Error(
        `${where}: the turn lifecycle (inbound, turn_started, messages_adopted, turn_ended) is handled by the runtime and is never routed`,
      );
    }
    if (kind === undefined || !DESTINATION_KINDS.includes(kind)) {
      throw new Error(`${where}: "${String(kind)}" is not a destination (${DESTINATION_KINDS.join(', ')})`);
    }
    if (type === 'answer' && kind === 'thread-log') {
      throw new Error(
        `${where}: the answer is a message of its own, not a log line; use top-level, thread-message or drop`,
      );
    }
  }
  return filters;
}

/** The routing config of one space: global `visibility` plus the space's own settings. */
export function resolveSpaceRouting(
  visibility: { threads?: boolean; filters?: RoutingFilters },
  spaceConfig: { threadsDisabled?: boolean; dm?: boolean } = {},
): SpaceRoutingConfig {
  const config: SpaceRoutingConfig = { threads: visibility.threads ?? true };
  if (spaceConfig.threadsDisabled !== undefined) config.threadsDisabled = spaceConfig.threadsDisabled;
  if (spaceConfig.dm !== undefined) config.dm = spaceConfig.dm;
  if (visibility.filters !== undefined) config.filters = validateRoutingFilters(visibility.filters);
  return config;
}
