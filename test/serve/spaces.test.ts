/**
 * Per-space threadsDisabled settable through the HTTP API (issue "Google Chat
 * surface", item 4): `PUT /v1/spaces/:space` changes a space's own settings
 * at run time; its next events follow them. `GET` reads them back. They are
 * saved in the store, so serve started again on the same SQLite file keeps
 * them (issue "turnlog serve", item 4: the daemon keeps its promises across
 * restarts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite.js';
import {
  getJson,
  ndjson,
  postEvents,
  SPACE,
  startTestServe,
  type TestServe,
  TOKEN,
} from './serve.helpers.js';

let serve: TestServe | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
});
const dir = mkdtempSync(join(tmpdir(), 'turnlog-spaces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function deleteSpace(url: string, space: string, token = TOKEN) {
  const response = await fetch(`${url}/v1/spaces/${encodeURIComponent(space)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function putSpace(url: string, space: string, body: unknown, token = TOKEN) {
  const response = await fetch(`${url}/v1/spaces/${encodeURIComponent(space)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** A user message and a turn with one tool call in SPACE; resolves with the turn's first log post. */
async function firstLogPost(running: TestServe) {
  const root = running.surface.inbound({ space: SPACE, text: 'please check the build' });
  await postEvents(
    running.url,
    ndjson(
      { type: 'inbound', space: SPACE, messageId: root.messageId, threadId: root.threadId, ref: 'u1' },
      { type: 'turn_started', space: SPACE, turnId: 'T1', rootRef: 'u1' },
      { type: 'tool_call', space: SPACE, turnId: 'T1', callId: 'c1', tool: 'Read' },
    ),
    { token: TOKEN },
  );
  const creates = () => running.surface.calls.filter((c) => c.op === 'create');
  await vi.waitFor(
    () => {
      running.clock.increment(100);
      expect(creates()).toHaveLength(1);
    },
    { timeout: 10_000, interval: 20 },
  );
  return creates()[0] as (typeof running.surface.calls)[number];
}

let databases = 0;
/** `before` on a serve with a fresh SQLite file, then `after` on a new serve (same config) on the same file. */
async function acrossRestart(
  config: Record<string, unknown>,
  before: (running: TestServe) => Promise<void>,
  after: (running: TestServe) => Promise<void>,
): Promise<void> {
  const path = join(dir, `restart-${++databases}.sqlite`);
  for (const step of [before, after]) {
    const store = createSqliteStore({ path });
    try {
      serve = await startTestServe({ ingest: { token: TOKEN }, config, store });
      await step(serve);
    } finally {
      await serve?.close();
      serve = undefined;
      store.close();
    }
  }
}

describe('PUT /v1/spaces/:space', () => {
  it('refuses a body that is not JSON without quoting it (it may be a secret)', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    for (const [text, secret] of [
      ['hunter2pw', 'hunter2'],
      ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtn'],
    ] as const) {
      const response = await fetch(`${serve.url}/v1/spaces/${encodeURIComponent(SPACE)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: text,
      });
      expect(response.status).toBe(400);
      const body = await response.text();
      expect(body).toMatch(/the body is not JSON/);
      expect(body).not.toContain(secret);
    }
  });

  it('turns threads off for one space: its log lines go top-level from then on', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    expect((await getJson(serve.url, `/v1/spaces/${encodeURIComponent(SPACE)}`, TOKEN)).json).toEqual({
      space: SPACE,
    });
    expect(await putSpace(serve.url, SPACE, { threadsDisabled: true })).toEqual({
      status: 200,
      json: { space: SPACE, threadsDisabled: true },
    });
    expect((await firstLogPost(serve)).thread).toBeNull();
    expect((await getJson(serve.url, `/v1/spaces/${encodeURIComponent(SPACE)}`, TOKEN)).json).toEqual({
      space: SPACE,
      threadsDisabled: true,
    });
  });

  it('keeps the settings across a restart on the same SQLite file, over the config', async () => {
    await acrossRestart(
      { spaces: { [SPACE]: { threadsDisabled: false } } },
      async (running) => {
        expect((await putSpace(running.url, SPACE, { threadsDisabled: true })).status).toBe(200);
      },
      async (running) => {
        expect((await getJson(running.url, `/v1/spaces/${encodeURIComponent(SPACE)}`, TOKEN)).json).toEqual({
          space: SPACE,
          threadsDisabled: true,
        });
        expect((await firstLogPost(running)).thread).toBeNull();
      },
    );
  });

  it('DELETE clears the run-time settings: the config applies again, also after a restart', async () => {
    await acrossRestart(
      { spaces: { [SPACE]: { dm: false } } },
      async (running) => {
        expect((await putSpace(running.url, SPACE, { threadsDisabled: true })).json).toEqual({
          space: SPACE,
          dm: false,
          threadsDisabled: true,
        });
        expect(await deleteSpace(running.url, SPACE)).toEqual({
          status: 200,
          json: { space: SPACE, dm: false },
        });
        expect((await deleteSpace(running.url, SPACE, 'wrong')).status).toBe(401);
      },
      async (running) => {
        expect((await getJson(running.url, `/v1/spaces/${encodeURIComponent(SPACE)}`, TOKEN)).json).toEqual({
          space: SPACE,
          dm: false,
        });
        // Threads are on again: the log goes into the user's thread.
        expect((await firstLogPost(running)).thread).not.toBeNull();
      },
    );
  });

  it('DELETE applies to a space that is already running: its next turn is threaded again', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    await putSpace(serve.url, SPACE, { threadsDisabled: true });
    // The space is running (an event reached it) with threads off, then its settings are cleared.
    await postEvents(
      serve.url,
      ndjson({ type: 'inbound', space: SPACE, messageId: 'spaces/AAAA/messages/x' }),
      {
        token: TOKEN,
      },
    );
    expect((await deleteSpace(serve.url, SPACE)).json).toEqual({ space: SPACE });
    expect((await firstLogPost(serve)).thread).not.toBeNull();
  });

  it('refuses a bad space, a bad body and a missing token with errors that say what is wrong', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const badSpace = await putSpace(serve.url, 'teams:general', { threadsDisabled: true });
    expect(badSpace.status).toBe(400);
    expect(String(badSpace.json.error)).toContain('teams:general');
    const badBody = await putSpace(serve.url, SPACE, { threadsDisabled: 'yes' });
    expect(badBody.status).toBe(400);
    expect(String(badBody.json.error)).toContain('threadsDisabled');
    const unknownKey = await putSpace(serve.url, SPACE, { threads: false });
    expect(unknownKey.status).toBe(400);
    expect((await putSpace(serve.url, SPACE, { dm: true }, 'wrong')).status).toBe(401);
  });
});
