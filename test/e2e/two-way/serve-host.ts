/**
 * The agent host of the two-way suite: `turnlog serve` over a platform's
 * emulator, and a host that posts run events and long-polls GET /v1/actions.
 */
import { expect, vi } from 'vitest';
import type { Action } from '../../../src/actions/types.js';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { startServe } from '../../../src/serve/index.js';
import { createServeLogger } from '../../../src/serve/logger.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { PlatformSetup, RunningPlatform } from './platforms.js';

export const TOKEN = 'two-way-ingest-token-0123456789';
/** Closed after each test by the suite (`afterEach(runCleanups)`). */
export const cleanups: (() => Promise<unknown> | unknown)[] = [];
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** What the agent host does: polls GET /v1/actions and posts run events. */
export class Host {
  cursor: string | undefined;
  readonly seen: Action[] = [];
  constructor(
    readonly url: string,
    readonly space: string,
  ) {}

  async events(...events: Record<string, unknown>[]): Promise<void> {
    const res = await fetch(`${this.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
      body: events.map((event) => JSON.stringify({ space: this.space, ...event })).join('\n'),
    });
    const body = (await res.json()) as { accepted: number; rejected: unknown[] };
    expect(res.status, JSON.stringify(body)).toBe(202);
    expect(body.rejected).toEqual([]);
  }

  /** Long-polls until an action matching `match` arrives (each action is seen once, in order). */
  async next<T extends Action['type']>(
    type: T,
    match: (action: Extract<Action, { type: T }>) => boolean = () => true,
  ): Promise<Extract<Action, { type: T }>> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const query = new URLSearchParams({ wait: '2', ...(this.cursor ? { after: this.cursor } : {}) });
      const res = await fetch(`${this.url}/v1/actions?${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { actions: Action[]; cursor: string };
      this.cursor = page.cursor;
      this.seen.push(...page.actions);
      const found = this.seen.find(
        (action): action is Extract<Action, { type: T }> =>
          action.type === type && match(action as Extract<Action, { type: T }>),
      );
      if (found) return found;
    }
    throw new Error(`no ${type} action within 20 s; saw ${JSON.stringify(this.seen)}`);
  }
}

export async function start(
  setup: PlatformSetup,
  visibility: Record<string, unknown> = {},
  more: Record<string, unknown> = {},
) {
  const platform: RunningPlatform = await setup.start();
  cleanups.push(() => platform.close());
  const serve = await startServe({
    config: {
      ingest: { port: 0, token: TOKEN },
      store: { path: ':memory:' },
      platforms: platform.config,
      visibility: { threadLog: { editDebounceMs: 200 }, ...visibility },
      log: { level: 'silent' },
      ...more,
    },
    store: createMemoryStore(),
    logger: createServeLogger('silent'),
  });
  cleanups.push(() => serve.close());
  await platform.connect(serve.url);
  return { platform, serve, host: new Host(serve.url, `${setup.id}:${platform.space}`) };
}

export async function messageWhere(
  platform: RunningPlatform,
  match: (message: EmulatedMessage) => boolean,
  what: string,
): Promise<EmulatedMessage> {
  return vi.waitFor(
    async () => {
      const found = (await platform.messages()).find(match);
      if (!found) throw new Error(`no ${what} yet`);
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
}

export const buttonsOf = (message: EmulatedMessage) =>
  ((message as { buttons?: { action: string; label: string }[] }).buttons ?? []).map((b) => b.action);
