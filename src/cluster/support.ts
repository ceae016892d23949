/**
 * Parts of the cluster runtime (src/cluster/runtime.ts): admission of an
 * event before it goes into the inbox (scrub, parse, check, redact; refused
 * input kept as a dead letter), a space's settings on a process that does
 * not own it, the shared budget as a space's runtime borrows it, and a
 * bounded wait.
 */

import type { Pool } from 'pg';
import type { ActionsPollOptions } from '../actions/outbox.js';
import type { Action } from '../actions/types.js';
import type { ChannelBackend } from '../adapter/channel-adapter.js';
import type { SharedBudget } from '../budget/shared-budget.js';
import type { Clock } from '../clock.js';
import type { TurnlogConfig } from '../config.js';
import { parseRunEvent } from '../events/parse.js';
import { redactRunEvent } from '../events/redact-event.js';
import type { RunEvent } from '../events/schema.js';
import { type KeyStreams, scrubInput } from '../events/scrub.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { Runtime, RuntimeLogger, SpaceOverrides } from '../runtime/types.js';
import type { StoredSpaceSettings, TurnlogStore } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';
import type { InboxItem } from './inbox.js';

export interface ClusterAdmissionDeps {
  store: TurnlogStore;
  clock: Clock;
  logger: RuntimeLogger;
  registry: PlatformRegistry;
  surfaces: Partial<Record<string, ChatSurface>>;
  keyStreams: KeyStreams;
}

export function createClusterAdmission({
  store,
  clock,
  logger,
  registry,
  surfaces,
  keyStreams,
}: ClusterAdmissionDeps) {
  function deadLetter(reason: string, payload: unknown): void {
    const text = typeof payload === 'string' ? payload : safeJson(payload);
    Promise.resolve(store.deadLetter({ at: clock.now(), source: 'ingest', reason, payload: text })).catch(
      (error: unknown) => logger.error('dead letter not kept', { error: String(error) }),
    );
  }

  /** Scrubbed, parsed, checked against the surfaces, redacted: what goes into the inbox. */
  function admit(raw: unknown): { ok: true; event: RunEvent } | { ok: false; error: string } {
    const scrubbed = scrubInput(raw, keyStreams);
    if (!scrubbed.ok) {
      deadLetter(scrubbed.error, scrubbed.payload);
      return { ok: false, error: scrubbed.error };
    }
    const parsed = parseRunEvent(scrubbed.value, { platforms: registry });
    if (!parsed.ok) {
      deadLetter(parsed.error, scrubbed.value);
      return { ok: false, error: parsed.error };
    }
    const platform = registry.forSpace(parsed.event.space).id;
    if (!surfaces[platform]) {
      const error = `no ${platform} surface is configured for space ${parsed.event.space}`;
      deadLetter(error, scrubbed.value);
      return { ok: false, error };
    }
    return { ok: true, event: redactRunEvent(parsed.event) };
  }

  return { admit, deadLetter };
}

export interface ClusterSettingsDeps {
  config: TurnlogConfig;
  registry: PlatformRegistry;
  store: TurnlogStore;
  logger: RuntimeLogger;
  /** The spaces this process owns now, each with its runtime. */
  owners: ReadonlyMap<string, { runtime: Runtime }>;
  /** Settings of spaces owned elsewhere, as last read or changed here. */
  savedSettings: Map<string, StoredSpaceSettings>;
  append(items: InboxItem[]): Promise<number[]>;
}

/** A space's settings on any process: its owner's, or the stored ones (a change goes to the owner through the inbox). */
export function createClusterSettings({
  config,
  registry,
  store,
  logger,
  owners,
  savedSettings,
  append,
}: ClusterSettingsDeps) {
  function spaceSettings(space: string): SpaceOverrides {
    const owner = owners.get(space);
    if (owner) return owner.runtime.spaceSettings(space);
    return { ...config.spaces[space], ...savedSettings.get(space) };
  }

  function changeSettings(
    space: string,
    body: { reset?: boolean; settings?: SpaceOverrides },
  ): SpaceOverrides {
    registry.forSpace(space);
    const owner = owners.get(space);
    if (owner) {
      return body.reset
        ? owner.runtime.resetSpace(space)
        : owner.runtime.configureSpace(space, body.settings ?? {});
    }
    const merged = body.reset ? {} : { ...savedSettings.get(space), ...body.settings };
    savedSettings.set(space, merged);
    Promise.resolve(store.saveSpaceSettings(space, merged)).catch((error: unknown) =>
      logger.error('saving space settings failed', { space, error: String(error) }),
    );
    append([{ space, kind: 'settings', body }]).catch(() => undefined);
    return spaceSettings(space);
  }

  async function refreshSettings(): Promise<void> {
    const all = await store.spaceSettings();
    for (const [space, saved] of Object.entries(all)) if (!owners.has(space)) savedSettings.set(space, saved);
  }

  return { spaceSettings, changeSettings, refreshSettings };
}

/** The process's shared budget as a space's runtime gets it: used, but started and stopped by the cluster. */
export function lend(budget: SharedBudget): SharedBudget {
  const lent = Object.create(budget) as SharedBudget;
  // Only the lifecycle is the borrower's no-op; every other call goes to the budget itself (`this` = the budget).
  for (const key of ['mode', 'liveProcesses', 'take', 'admit', 'heartbeat'] as const) {
    const method = budget[key] as (...args: unknown[]) => unknown;
    Object.defineProperty(lent, key, { value: (...args: unknown[]) => method.apply(budget, args) });
  }
  Object.defineProperty(lent, 'start', { value: async () => {} });
  Object.defineProperty(lent, 'stop', { value: async () => {} });
  Object.defineProperty(lent, 'idle', { value: () => budget.idle() });
  return lent;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The channel adapter's backend on a cluster member: actions from the shared
 * outbox, writes through the runtime of the space's owner (here, or an
 * error naming that another process runs the space now).
 */
export function clusterChannel(
  owners: ReadonlyMap<string, { runtime: Runtime }>,
  actions: (poll: ActionsPollOptions) => Promise<{ actions: Action[]; cursor: string }>,
): ChannelBackend {
  function ownerOf(space: string): Runtime {
    const owner = owners.get(space);
    if (owner === undefined) throw new Error(`cluster: ${space} is run by another process now`);
    return owner.runtime;
  }
  async function* channelActions(after: string | undefined, signal: AbortSignal) {
    let cursor = after;
    while (!signal.aborted) {
      const page = await actions({
        ...(cursor !== undefined ? { after: cursor } : {}),
        waitMs: 5_000,
        signal,
      });
      for (const action of page.actions) yield action;
      cursor = page.cursor;
    }
  }
  return {
    actions: ({ after, signal }) => channelActions(after, signal),
    post: (req) => ownerOf(req.space).channel.post(req),
    edit: (req) => ownerOf(req.space).channel.edit(req),
    react: (req) => ownerOf(req.space).channel.react(req),
    postCard: (req) => ownerOf(req.space).channel.postCard(req),
  };
}

/** `/healthz`'s `cluster` object (docs/http-api.md (several instances)): the store answers within 2 s, or why not. */
export async function clusterHealth(parts: {
  pool: Pool;
  instanceId: string;
  owns: () => string[];
  budget: () => 'shared' | 'local-fallback' | 'local';
}): Promise<{
  instanceId: string;
  owns: string[];
  store: string;
  budget: 'shared' | 'local-fallback' | 'local';
}> {
  let store = 'ok';
  try {
    await withTimeout(parts.pool.query('SELECT 1'), 2_000);
  } catch (error) {
    store = error instanceof Error ? error.message : String(error);
  }
  return { instanceId: parts.instanceId, owns: parts.owns().sort(), store, budget: parts.budget() };
}
