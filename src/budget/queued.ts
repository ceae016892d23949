/**
 * Queued writes (policy cards): each must land but yields to every terminal
 * frame. A channel's queue is served one write per free slot, its groups (a
 * turn's thread) taking turns.
 */
import type { BudgetConfig, SeparateWriteConfig, WriteKind } from './config.js';
import { bookChannel, channelFreeAt } from './registry.js';
import { advance, type BudgetState, type QueuedLane, type QueuedRequest, timeOf } from './state.js';
import { coolOffEndsAt } from './waits.js';
import { recordSent, recordSeparate, separateFreeAt, separateOf, windowFreeAt } from './window-log.js';

/**
 * Queues a write that must land but yields to terminal frames (a policy
 * card): it is funded by `serveQueued` when its channel is free, a token is
 * in the bucket (it may use the reserve, never go into debt: a debt is a
 * terminal frame waiting) and no cool-off runs. Returns its id.
 */
export function bookQueued(
  state: BudgetState,
  config: BudgetConfig,
  request: QueuedRequest,
): { state: BudgetState; id: number } {
  advance(state, config, request.now);
  const id = state.nextBookingId;
  state.nextBookingId += 1;
  const lane = state.queued[request.channel] ?? { order: [], groups: {} };
  state.queued[request.channel] = lane;
  const waiting = lane.groups[request.group];
  if (waiting) waiting.push(id);
  else {
    lane.groups[request.group] = [id];
    lane.order.push(request.group);
  }
  state.queuedCount += 1;
  if (separateOf(config, request.write) !== undefined && request.write !== undefined) {
    state.queuedWrites ??= {};
    state.queuedWrites[id] = request.write;
  }
  return { state, id };
}

/** The channel's next queued write: its id and, when it is a separate kind, that kind and its limits. */
function queuedHead(
  state: BudgetState,
  config: BudgetConfig,
  lane: QueuedLane,
): { id: number; kind?: WriteKind; own?: SeparateWriteConfig } {
  const id = lane.groups[lane.order[0]!]![0]!;
  const kind = state.queuedWrites?.[id];
  const own = separateOf(config, kind);
  return kind === undefined || own === undefined ? { id } : { id, kind, own };
}

/**
 * When a queued write may go: the channel free, no cool-off, and a token (no
 * debt) — or, for a separate kind, room in its own limit (and the channel
 * only when it is spaced).
 */
function queuedReadyAt(
  state: BudgetState,
  config: BudgetConfig,
  channel: string,
  lane: QueuedLane,
  at: number,
): number {
  const head = queuedHead(state, config, lane);
  if (head.own !== undefined && head.kind !== undefined) {
    const channelAt = head.own.spaced ? channelFreeAt(state.registry, channel, at) : at;
    const from = Math.max(channelAt, coolOffEndsAt(state, at));
    return separateFreeAt(state, head.own, head.kind, from);
  }
  const tokenAt = state.tokens >= 1 ? at : at + Math.ceil((1 - state.tokens) / config.refillPerMs);
  const readyAt = Math.max(tokenAt, channelFreeAt(state.registry, channel, at), coolOffEndsAt(state, at));
  return windowFreeAt(state, config, readyAt);
}

/**
 * Funds the queued writes that may go at `at`: at most one per channel (it
 * books the channel's next slot), the channel's groups taking turns. Returns
 * the funded ids, oldest channel first.
 */
export function serveQueued(
  state: BudgetState,
  config: BudgetConfig,
  at: number,
): { state: BudgetState; funded: number[] } {
  const funded: number[] = [];
  if (state.queuedCount === 0) return { state, funded };
  advance(state, config, at);
  const now = timeOf(state);
  for (const [channel, lane] of Object.entries(state.queued)) {
    if (queuedReadyAt(state, config, channel, lane, now) > now) continue;
    const head = queuedHead(state, config, lane);
    const group = lane.order.shift()!;
    const waiting = lane.groups[group]!;
    funded.push(waiting.shift()!);
    if (waiting.length > 0) lane.order.push(group);
    else delete lane.groups[group];
    if (lane.order.length === 0) delete state.queued[channel];
    state.queuedCount -= 1;
    if (head.own !== undefined && head.kind !== undefined) {
      delete state.queuedWrites?.[head.id];
      recordSeparate(state, head.own, head.kind, now);
      if (head.own.spaced) bookChannel(state.registry, channel, now + config.channelSpacingMs, now);
      continue;
    }
    state.tokens -= 1;
    recordSent(state, config, now);
    bookChannel(state.registry, channel, now + config.channelSpacingMs, now);
  }
  return { state, funded };
}

/** When the next queued write may be funded; null when none waits. */
export function nextQueuedAt(state: BudgetState, config: BudgetConfig): number | null {
  if (state.queuedCount === 0 || state.clockAt === null) return null;
  let earliest = Number.POSITIVE_INFINITY;
  for (const [channel, lane] of Object.entries(state.queued)) {
    earliest = Math.min(earliest, queuedReadyAt(state, config, channel, lane, state.clockAt));
  }
  return earliest;
}
