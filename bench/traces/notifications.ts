/**
 * How often a person's phone buzzes for agent turns: the runtime (default
 * settings) on a simulated clock, against the memory surface with Google
 * Chat's capabilities, fed generated agent traces. A new message notifies
 * (unless posted silently where the platform can); an edit never does.
 */

import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { describeToolCall } from '../../src/turnlog/format.js';
import { startBenchRuntime } from '../runtime/harness.js';
import { HeapClock } from '../runtime/heap-clock.js';
import type { TimedEvent } from './agent-trace.js';

export interface NotificationCount {
  turns: number;
  /** Posts that notify someone. */
  notifications: number;
  /** Of those, the activity log's (in a thread); the rest are the answers, top-level. */
  logNotifications: number;
  /** Every write: creates and edits. */
  writes: number;
  /** Tool calls whose line no message of their turn's thread shows. */
  invisibleCalls: string[];
  /** Tool calls whose line is still pending (`⋯`) in their thread's final text though their result came. */
  pendingAtEnd: number;
  /** Calls the platform refused (HTTP status ≥ 400). */
  refusals: number;
}

/** Feeds `trace` (ms offsets from 0) to a fresh runtime on Google Chat and counts what it cost. */
export async function countNotifications(trace: readonly TimedEvent[]): Promise<NotificationCount> {
  const clock = new HeapClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const bench = await startBenchRuntime(surface, { clock });
  try {
    for (const { at, event } of [...trace].sort((a, b) => a.at - b.at)) {
      if (at > clock.now()) await bench.advance(at - clock.now());
      bench.ingest(event);
    }
    await bench.drain();
  } finally {
    await bench.runtime.stop();
  }

  const calls = surface.calls;
  const creates = calls.filter((c) => c.op === 'create' && c.status < 400);
  const turns = new Set(trace.filter((t) => t.event.type === 'turn_started').map((t) => t.event.turnId));
  const space = String(trace[0]?.event.space ?? '');
  const messages = space === '' ? [] : surface.messages(space);
  const threadTexts = new Map<string, string[]>();
  for (const message of messages) {
    const key = message.thread ?? '';
    threadTexts.set(key, [...(threadTexts.get(key) ?? []), message.text]);
  }
  const rootOf = new Map<unknown, string>();
  for (const { event } of trace) {
    if (event.type === 'inbound') rootOf.set(event.ref, String(event.threadId));
  }
  const invisibleCalls: string[] = [];
  let pendingAtEnd = 0;
  for (const { event } of trace) {
    if (event.type !== 'tool_call') continue;
    const texts = threadTexts.get(rootOf.get(event.turnId) ?? '') ?? [];
    const call = describeToolCall(String(event.tool), event.input as Record<string, unknown> | undefined);
    const lines = texts.flatMap((text) => text.split('\n')).filter((line) => line.includes(call));
    if (lines.length === 0) invisibleCalls.push(String(event.callId));
    else if (lines.every((line) => line.includes(`⋯ ${call}`))) pendingAtEnd++;
  }
  return {
    turns: turns.size,
    notifications: creates.filter((c) => c.notifies).length,
    logNotifications: creates.filter((c) => c.notifies && c.thread !== null).length,
    writes: calls.filter((c) => c.op === 'create' || c.op === 'update').length,
    invisibleCalls,
    pendingAtEnd,
    refusals: calls.filter((c) => c.status >= 400).length,
  };
}
