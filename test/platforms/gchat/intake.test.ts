/**
 * Google Chat intake (docs/platforms.md "Google Chat: two-way"): the Chat app
 * endpoint `POST /v1/platforms/gchat/events` verifies Chat's Bearer JWT with
 * google-auth-library against the emulator's published keys, and hands
 * MESSAGE and CARD_CLICKED events to a real runtime on the Google Chat
 * surface (googleapis → emulator). Events come from the emulator the way
 * Google Chat sends them (`POST /_emulator/app`, `/_emulator/inbound`,
 * `/_emulator/click`), through a relay that records each request so a test
 * can replay or alter it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClickIntake, IntakeResult, MessageIntake } from '../../../src/actions/types.js';
import { createChatSigningKey, signChatToken } from '../../../src/emulators/gchat/app-jwt.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';
import type { GchatConfig } from '../../../src/platforms/gchat/descriptor.js';

import type { PlatformDescriptor, PlatformIntake } from '../../../src/registry/descriptor.js';
import { type IngestServer, startIngestServer } from '../../../src/serve/http.js';
import { createServeLogger } from '../../../src/serve/logger.js';
import { type GchatE2E, SPACE, SPACE_NAME, startGchatE2E } from '../../e2e/gchat/harness.js';
import { emulatorAnswer } from '../../emulators/inspection.js';
import { startTestServe } from '../../serve/serve.helpers.js';

const AUDIENCE = '1234567890';

interface Recorded {
  authorization: string;
  body: string;
  status: number;
  answer: string;
}

/** Forwards what the emulator delivers to the intake, recording request and answer. */
async function startRelay(target: () => string): Promise<{ url: string; seen: Recorded[]; server: Server }> {
  const seen: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const authorization = req.headers.authorization ?? '';
      const forwarded = await fetch(target(), {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
      const answer = await forwarded.text();
      seen.push({ authorization, body, status: forwarded.status, answer });
      res.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen, server };
}

interface Rig {
  e2e: GchatE2E;
  intake: PlatformIntake;
  server: IngestServer;
  relay: Awaited<ReturnType<typeof startRelay>>;
  endpoint: string;
  receive: ReturnType<typeof vi.spyOn>;
  warnings: string[];
  emulator(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Sends a request to the endpoint as is. */
  send(
    authorization: string | undefined,
    body: string,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  await rig.server.close();
  await new Promise((resolve) => rig?.relay.server.close(resolve));
  await rig.e2e.stop();
  rig = undefined;
});

async function startRig(
  opts: { tokenNow?: () => number; secret?: string; jwksUrl?: string } = {},
): Promise<Rig> {
  const e2e = await startGchatE2E({ emulator: opts.tokenNow ? { tokenNow: opts.tokenNow } : {} });
  const warnings: string[] = [];
  const receive = vi.spyOn(e2e.runtime, 'receive');
  const gchat = builtinPlatforms.get('gchat') as PlatformDescriptor<GchatConfig>;
  const intake = gchat.createIntake?.(
    gchat.configSchema.parse({
      apiUrl: e2e.emulator.url,
      events: { audience: AUDIENCE, jwksUrl: opts.jwksUrl ?? `${e2e.emulator.url}/_emulator/jwks` },
    }),
    {
      sink: e2e.runtime,
      now: () => e2e.clock.now(),
      logger: {
        info: () => {},
        warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
      },
    },
  ) as PlatformIntake;
  const server = await startIngestServer({
    runtime: e2e.runtime,
    intakes: { gchat: intake },
    surfaces: {},
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1 << 20,
    deadLetter: () => {},
    logger: createServeLogger('silent'),
  });
  const endpoint = `${server.url}/v1/platforms/gchat/events`;
  const relay = await startRelay(() => endpoint);
  const emulator = (path: string, body: unknown) => emulatorAnswer(e2e.emulator.url, path, body);
  await emulator('app', { url: relay.url, secret: opts.secret ?? AUDIENCE });
  const send = async (authorization: string | undefined, body: string) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  rig = { e2e, intake, server, relay, endpoint, receive, warnings, emulator, send };
  return rig;
}

const personPosts = async (r: Rig, text: string, space = SPACE_NAME) =>
  (await r.emulator('inbound', { space, text, user: 'alice' })).body as {
    messageId: string;
    threadId: string;
  };

describe('Google Chat intake: verification', () => {
  it("takes an event whose JWT Google Chat's key signed for this audience; refuses and counts a missing, forged or altered one", async () => {
    const r = await startRig();
    await personPosts(r, 'hello');
    expect(r.relay.seen.map((s) => s.status)).toEqual([200]);
    expect(r.intake.refused()).toBe(0);
    const valid = r.relay.seen[0] as Recorded;

    const missing = await r.send(undefined, valid.body);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatch(/no Authorization header/);

    // Signed with another key under the emulator's kid: the signature does not verify.
    const kid = (
      JSON.parse(Buffer.from(valid.authorization.split('.')[0]!.slice(7), 'base64url').toString()) as {
        kid: string;
      }
    ).kid;
    const forger = { ...createChatSigningKey(), kid };
    const forged = await r.send(
      `Bearer ${signChatToken(forger, { audience: AUDIENCE, nowMs: Date.now() })}`,
      valid.body,
    );
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatch(/bad signature/);

    // The emulator's token with its audience changed: the signature no longer matches.
    const [head, payload, signature] = valid.authorization.slice('Bearer '.length).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...claims, aud: 'another-project' })).toString('base64url');
    expect((await r.send(`Bearer ${head}.${altered}.${signature}`, valid.body)).status).toBe(401);

    const unsigned = Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url');
    const none = await r.send(`Bearer ${unsigned}.${payload}.`, valid.body);
    expect(none.status).toBe(401);
    expect(none.body.error).toMatch(/alg "none" is not RS256/);

    expect(r.intake.refused()).toBe(4);
    expect(r.receive).toHaveBeenCalledTimes(1);
    expect(r.warnings.join('\n')).not.toContain(valid.authorization.slice(7));
  });

  it('refuses and counts a token for another audience', async () => {
    const r = await startRig({ secret: 'another-project' });
    await personPosts(r, 'hello');
    expect(r.relay.seen.map((s) => s.status)).toEqual([401]);
    expect(JSON.parse(r.relay.seen[0]!.answer).error).toMatch(/wrong audience/);
    expect(r.intake.refused()).toBe(1);
    expect(r.receive).not.toHaveBeenCalled();
  });

  it('refuses and counts an expired token', async () => {
    const r = await startRig({ tokenNow: () => Date.now() - 2 * 3600_000 });
    await personPosts(r, 'hello');
    expect(r.relay.seen.map((s) => s.status)).toEqual([401]);
    expect(JSON.parse(r.relay.seen[0]!.answer).error).toMatch(/expired/);
    expect(r.intake.refused()).toBe(1);
    expect(r.receive).not.toHaveBeenCalled();
  });

  it("answers 503 without counting a refusal while Google's keys cannot be read", async () => {
    const r = await startRig({ jwksUrl: 'http://127.0.0.1:1/keys' });
    await personPosts(r, 'hello');
    expect(r.relay.seen.map((s) => s.status)).toEqual([503]);
    expect(JSON.parse(r.relay.seen[0]!.answer).error).toMatch(
      /could not fetch Google Chat's keys from http:\/\/127\.0\.0\.1:1\/keys/,
    );
    expect(r.warnings.join('\n')).toMatch(/cannot verify requests/);
    expect(r.intake.refused()).toBe(0);
    expect(r.receive).not.toHaveBeenCalled();
  });

  it('ignores a replayed request; answers 400 naming what is wrong for a bad body or an unknown event type, 413 for a body no Chat event has', async () => {
    const r = await startRig();
    await personPosts(r, 'hello');
    const valid = r.relay.seen[0] as Recorded;
    const replay = await r.send(valid.authorization, valid.body);
    expect(replay).toEqual({ status: 200, body: {} });
    expect(r.receive).toHaveBeenCalledTimes(1);

    const huge = await r.send(valid.authorization, JSON.stringify({ padding: 'x'.repeat(300_000) }));
    expect(huge.status).toBe(413);
    const notJson = await r.send(valid.authorization, '{"type": "MESSAGE",');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/the body is not JSON/);
    const event = JSON.parse(valid.body) as Record<string, unknown>;
    const widget = await r.send(valid.authorization, JSON.stringify({ ...event, type: 'WIDGET_UPDATED' }));
    expect(widget.status).toBe(400);
    expect(widget.body.error).toMatch(
      /unknown Google Chat event type "WIDGET_UPDATED": turnlog takes MESSAGE and CARD_CLICKED/,
    );
    const noSpace = await r.send(valid.authorization, JSON.stringify({ ...event, space: undefined }));
    expect(noSpace.status).toBe(400);
    expect(noSpace.body.error).toMatch(/not a Google Chat event: space/);
    const added = await r.send(valid.authorization, JSON.stringify({ ...event, type: 'ADDED_TO_SPACE' }));
    expect(added).toEqual({ status: 200, body: {} });
    expect(r.receive).toHaveBeenCalledTimes(1);
    expect(r.intake.refused()).toBe(0);
  });
});

describe('Google Chat intake: events to the runtime', () => {
  it("a person's MESSAGE becomes the runtime's anchor: a turn rooted on it threads under it", async () => {
    const r = await startRig();
    const posted = await personPosts(r, '@turnlog deploy please');
    expect(r.relay.seen[0]?.answer).toBe('{}');
    const intake = r.receive.mock.calls[0]?.[0] as MessageIntake;
    expect(intake).toEqual({
      kind: 'message',
      space: SPACE,
      messageId: posted.messageId,
      threadId: posted.threadId,
      text: '@turnlog deploy please',
      dm: false,
      user: { id: 'users/alice', name: 'alice' },
      at: r.e2e.clock.now(),
      dedupeKey: posted.messageId,
    });
    expect(await r.receive.mock.results[0]?.value).toMatchObject({ status: 'accepted' });

    r.e2e.send({ type: 'turn_started', turnId: 't1', root: { messageId: posted.messageId } });
    r.e2e.send({ type: 'note', turnId: 't1', text: 'working on it' });
    await r.e2e.advance(5_000);
    const log = r.e2e.messages().find((m) => m.text.includes('working on it'));
    expect(log?.thread).toBe(posted.threadId);
  });

  it('a message in a DM is a dm intake', async () => {
    const r = await startRig();
    await personPosts(r, 'hi', 'spaces/dm-alice');
    expect(r.receive.mock.calls[0]?.[0]).toMatchObject({
      kind: 'message',
      space: 'gchat:spaces/dm-alice',
      dm: true,
    });
  });

  it('Approve on a policy card a turn posted reaches the runtime as a click; its answer is told to the clicker privately', async () => {
    const r = await startRig();
    const posted = await personPosts(r, 'clean the cache');
    // Bob asked for the turn (alice posted the root), so his press decides (issue 22.2).
    r.e2e.send({
      type: 'turn_started',
      turnId: 't1',
      root: { messageId: posted.messageId },
      requestedBy: 'users/bob',
    });
    r.e2e.send({ type: 'policy_request', turnId: 't1', requestId: 'p1', command: 'rm -rf /tmp/cache' });
    await r.e2e.advance(5_000);
    const card = r.e2e.messages().find((m) => m.buttons?.length);
    expect(card?.buttons?.map((b) => b.label)).toEqual(['Approve', 'Reject']);

    const click = await r.emulator('click', { messageId: card?.id, action: 'approve', user: 'bob' });
    expect(r.receive).toHaveBeenCalledTimes(2);
    const intake = r.receive.mock.calls[1]?.[0] as ClickIntake;
    expect(intake).toEqual({
      kind: 'click',
      space: SPACE,
      messageId: card?.id,
      threadId: posted.threadId,
      action: 'approve',
      user: { id: 'users/bob', name: 'bob' },
      at: r.e2e.clock.now(),
      dedupeKey: expect.stringContaining(`${card?.id}|users/bob|approve|`),
    });
    const result = (await r.receive.mock.results[1]?.value) as IntakeResult;
    expect(click.status).toBe(200);
    if (result.status === 'accepted') expect(click.body).toEqual({ delivered: true, status: 200 });
    else expect(click.body).toEqual({ delivered: true, status: 200, reply: result.text });
    if (result.status !== 'accepted') {
      expect(JSON.parse(r.relay.seen[1]!.answer)).toEqual({
        actionResponse: { type: 'NEW_MESSAGE' },
        privateMessageViewer: { name: 'users/bob' },
        text: result.text,
      });
    }

    // The same click delivered again is a replay: not taken twice.
    const again = r.relay.seen[1] as Recorded;
    expect(await r.send(again.authorization, again.body)).toEqual({ status: 200, body: {} });
    expect(r.receive).toHaveBeenCalledTimes(2);
    // A button of another app's making is not the runtime's: the clicker is told.
    const foreign = JSON.parse(again.body) as Record<string, unknown>;
    const other = await r.send(
      again.authorization,
      JSON.stringify({
        ...foreign,
        common: { invokedFunction: 'other.app', parameters: {} },
        action: undefined,
      }),
    );
    expect(other.body).toEqual({
      actionResponse: { type: 'NEW_MESSAGE' },
      privateMessageViewer: { name: 'users/bob' },
      text: 'turnlog does not know this button (other.app).',
    });
    expect(r.receive).toHaveBeenCalledTimes(2);
    // The approval took: once the card's edit lands it has no buttons, so there is nothing left to press.
    expect(result.status).toBe('accepted');
    await r.e2e.advance(5_000);
    expect(r.e2e.messages().find((m) => m.id === card?.id)?.buttons ?? []).toEqual([]);
    const late = await r.emulator('click', { messageId: card?.id, action: 'reject', user: 'bob' });
    expect(late.status).toBe(400);
    expect(r.receive).toHaveBeenCalledTimes(2);
  });
});

describe('turnlog serve: platforms.gchat.events', () => {
  it('mounts the Google Chat intake when an audience is configured', async () => {
    const keys = await startGchatE2E();
    const serve = await startTestServe({
      config: {
        platforms: {
          gchat: {
            apiUrl: keys.emulator.url,
            events: { audience: AUDIENCE, jwksUrl: `${keys.emulator.url}/_emulator/jwks` },
          },
        },
      },
    });
    // One time for the emulated world and the runtime (the runtime takes messages stamped within a day of its now).
    serve.clock.set(keys.clock.now());
    try {
      const url = `${serve.url}/v1/platforms/gchat/events`;
      expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(401);
      const reg = await fetch(`${keys.emulator.url}/_emulator/app`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, secret: AUDIENCE }),
      });
      expect(reg.status).toBe(200);
      const posted = (await (
        await fetch(`${keys.emulator.url}/_emulator/inbound`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ space: SPACE_NAME, text: 'hello' }),
        })
      ).json()) as { messageId: string };
      const refused = serve.logs.filter(
        (l) => l.msg === 'gchat intake: refused a request that failed verification',
      );
      expect(refused).toHaveLength(1);
      // The runtime has the person's message: the same message again is a duplicate.
      expect(
        await serve.runtime.receive({
          kind: 'message',
          space: SPACE,
          messageId: posted.messageId,
          text: 'hello',
          dm: false,
          user: { id: 'users/human' },
          at: keys.clock.now(),
          dedupeKey: posted.messageId,
        }),
      ).toMatchObject({ status: 'duplicate' });
    } finally {
      await serve.close();
      await keys.stop();
    }
  });
});
