// spec: docs/platforms.md "Discord: the gateway" — with `platforms.discord.gateway: true` a discord.js Client
// takes MESSAGE_CREATE (a person's message → the runtime's `receive`, recorded as an anchor) and
// INTERACTION_CREATE for buttons (→ a click for the runtime, answered within Discord's 3 s: a deferred
// update when accepted, an ephemeral reply with the result's text otherwise). Real runtime, real
// discord.js, the Discord emulator's gateway.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntakeEvent, IntakeResult, IntakeSink } from '../../../src/actions/types.js';
import {
  createDiscordIntake,
  DiscordGatewayError,
  type DiscordIntake,
  discordPlatform,
} from '../../../src/platforms/discord/index.js';
import { createMemoryStore } from '../../../src/store/index.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { CHANNEL, type DiscordE2E, landed, SPACE, startDiscordE2E, TOKEN } from './harness.js';

const PERSON = '1950000000000000201';
const DM = '1800000000000000777';

let e: DiscordE2E | undefined;
let intake: DiscordIntake | undefined;
afterEach(async () => {
  await intake?.stop();
  intake = undefined;
  await e?.stop();
  e = undefined;
});

interface Seen {
  event: IntakeEvent;
  result: IntakeResult;
}

/** The runtime's `receive`, watched: what the intake handed it and what it answered. */
function watched(sink: IntakeSink, seen: Seen[]): IntakeSink {
  return {
    async receive(event) {
      const result = await sink.receive(event);
      seen.push({ event, result });
      return result;
    },
  };
}

const warnings: string[] = [];
const logger = { info: () => {}, warn: (message: string) => warnings.push(message) };

async function setUp(
  opts: { store?: TurnlogStore; sink?: (runtime: IntakeSink) => IntakeSink; answerWithinMs?: number } = {},
) {
  e = await startDiscordE2E({
    emulator: { gateway: { tokens: [TOKEN] }, channels: [{ id: DM, type: 1, recipientId: PERSON }] },
    ...(opts.store ? { store: opts.store } : {}),
  });
  const seen: Seen[] = [];
  const runtime = watched(e.runtime, seen);
  intake = createDiscordIntake({
    token: TOKEN,
    apiUrl: e.emulator.url,
    sink: opts.sink ? opts.sink(runtime) : runtime,
    logger,
    ...(opts.answerWithinMs === undefined ? {} : { answerWithinMs: opts.answerWithinMs }),
  });
  await intake.start();
  const url = e.emulator.url;
  return {
    e,
    seen,
    personSays: (body: { space: string; text: string; threadId?: string }) =>
      emulatorCall<{ messageId: string; threadId: string }>(url, 'inbound', {
        user: PERSON,
        ...body,
      }),
    click: (body: { messageId: string; action: string }) =>
      emulatorCall<{ delivered: boolean; status: number; reply?: string }>(url, 'click', {
        user: PERSON,
        ...body,
      }),
  };
}

/** A turn rooted on `root` that asks for approval: the policy card lands in the turn's thread. */
async function cardOn(e: DiscordE2E, root: string) {
  e.send({ type: 'turn_started', turnId: 'T1', root: { messageId: root } });
  e.send({ type: 'policy_request', turnId: 'T1', requestId: 'R1', command: 'rm', args: ['-rf', 'build'] });
  await e.advance(3000);
  const card = e.thread(root).find((m) => (m.buttons ?? []).length > 0);
  expect(card?.buttons).toEqual([
    { action: 'approve', label: 'Approve' },
    { action: 'reject', label: 'Reject' },
  ]);
  return card!;
}

describe('Discord gateway intake', () => {
  it("a person's message reaches receive() as a MessageIntake and is kept as an anchor; a turn rooted on it threads on it", async () => {
    const store = createMemoryStore();
    const { e, seen, personSays } = await setUp({ store });
    const posted = await personSays({ space: CHANNEL, text: 'please deploy' });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]).toEqual({
      event: {
        kind: 'message',
        space: SPACE,
        messageId: posted.messageId,
        text: 'please deploy',
        dm: false,
        user: { id: PERSON, name: PERSON },
        at: expect.any(Number),
        dedupeKey: posted.messageId,
      },
      result: expect.objectContaining({ status: 'accepted' }),
    });
    await vi.waitFor(async () =>
      expect(await store.anchors(SPACE, 10)).toContainEqual(
        expect.objectContaining({ messageId: posted.messageId }),
      ),
    );

    e.send({ type: 'turn_started', turnId: 'T1', root: { messageId: posted.messageId } });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'src/app.ts' } });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    expect(e.calls().find((c) => c.op === 'thread')?.path).toBe(
      `/api/v10/channels/${CHANNEL}/messages/${posted.messageId}/threads`,
    );
    expect(e.thread(posted.messageId)[0]?.text).toContain('src/app.ts');
    // The bot's own log message came back over the gateway too: it is not a person talking.
    expect(landed(e.creates()).length).toBeGreaterThanOrEqual(1);
    expect(seen.filter((s) => s.event.kind === 'message')).toHaveLength(1);
  });

  it('a reply in a thread names the parent channel and the thread; a DM says dm', async () => {
    const { seen, personSays } = await setUp();
    const root = await personSays({ space: CHANNEL, text: 'first' });
    const reply = await personSays({ space: CHANNEL, text: 'second', threadId: root.messageId });
    const dm = await personSays({ space: DM, text: 'in private' });
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 10_000 });
    expect(seen[1]?.event).toMatchObject({
      kind: 'message',
      space: SPACE,
      threadId: root.messageId,
      messageId: reply.messageId,
      dm: false,
    });
    expect(seen[2]?.event).toMatchObject({
      kind: 'message',
      space: `discord:${DM}`,
      messageId: dm.messageId,
      text: 'in private',
      dm: true,
    });
    expect(seen[2]?.event).not.toHaveProperty('threadId');
  });

  it("a press on a real turn's card reaches receive() as a ClickIntake, and the person gets the result's text within 3 s", async () => {
    const { e, seen, personSays, click } = await setUp();
    const root = await personSays({ space: CHANNEL, text: 'clean the build' });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    const card = await cardOn(e, root.messageId);

    const answer = await click({ messageId: card.id, action: 'approve' });
    const press = seen.find((s) => s.event.kind === 'click');
    expect(press?.event).toEqual({
      kind: 'click',
      space: SPACE,
      threadId: root.messageId,
      messageId: card.id,
      action: 'approve',
      user: { id: PERSON, name: PERSON },
      at: expect.any(Number),
      dedupeKey: expect.stringMatching(/^\d+$/),
    });
    // Delivered means the interaction was answered before the emulator's 3 s deadline.
    expect(answer.delivered).toBe(true);
    expect(answer.status).toBe(204);
    // Accepted: acknowledged quietly (the card edit shows it); otherwise the runtime's text, to that person only.
    const accepted = press?.result.status === 'accepted';
    expect(answer.reply).toBe(accepted ? undefined : press?.result.text);
    const callback = e.emulator.state.calls().find((c) => c.path.endsWith('/callback'));
    expect(callback?.details).toMatchObject({ ephemeral: press?.result.status !== 'accepted' });
  });

  it('a press in a DM names the DM channel as the space, with no thread', async () => {
    const { e, seen, click } = await setUp();
    const res = await fetch(`${e.emulator.url}/api/v10/channels/${DM}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Stop?',
        components: [{ type: 1, components: [{ type: 2, style: 4, label: 'Stop', custom_id: 'stop' }] }],
      }),
    });
    const card = (await res.json()) as { id: string };
    expect(await click({ messageId: card.id, action: 'stop' })).toMatchObject({
      delivered: true,
      status: 204,
    });
    const press = seen.find((s) => s.event.kind === 'click');
    expect(press?.event).toMatchObject({
      kind: 'click',
      space: `discord:${DM}`,
      messageId: card.id,
      action: 'stop',
      user: { id: PERSON },
    });
    expect(press?.event).not.toHaveProperty('threadId');
  });

  it('an accepted press is acknowledged with a deferred update (no reply); a refused one gets its text, ephemeral', async () => {
    const verdicts: IntakeResult[] = [
      { status: 'accepted' },
      { status: 'already-decided', text: 'Already approved by Alice.' },
    ];
    const { e, personSays, click, seen } = await setUp({
      sink: (runtime) => ({
        receive: (event) =>
          event.kind === 'click' ? Promise.resolve(verdicts.shift()!) : runtime.receive(event),
      }),
    });
    const root = await personSays({ space: CHANNEL, text: 'go' });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    const card = await cardOn(e, root.messageId);
    expect(await click({ messageId: card.id, action: 'approve' })).toEqual({ delivered: true, status: 204 });
    expect(await click({ messageId: card.id, action: 'reject' })).toEqual({
      delivered: true,
      status: 204,
      reply: 'Already approved by Alice.',
    });
    const callbacks = e.emulator.state.calls().filter((c) => c.path.endsWith('/callback'));
    expect(callbacks.map((c) => c.details?.callbackType)).toEqual([6, 4]);
    expect(callbacks[1]?.details?.ephemeral).toBe(true);
  });

  it('a runtime slower than the deadline: the press is deferred in time anyway, and the late result is logged', async () => {
    let release: (result: IntakeResult) => void = () => {};
    const { e, personSays, click, seen } = await setUp({
      answerWithinMs: 50,
      sink: (runtime) => ({
        receive: (event) =>
          event.kind === 'click'
            ? new Promise<IntakeResult>((resolve) => {
                release = resolve;
              })
            : runtime.receive(event),
      }),
    });
    const root = await personSays({ space: CHANNEL, text: 'go' });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    const card = await cardOn(e, root.messageId);
    warnings.length = 0;
    expect(await click({ messageId: card.id, action: 'approve' })).toEqual({ delivered: true, status: 204 });
    release({ status: 'unknown', text: 'no such card' });
    await vi.waitFor(() => expect(warnings.join('\n')).toMatch(/answered late/));
  });

  it('a refused bot token fails start() with an error naming platforms.discord.token', async () => {
    e = await startDiscordE2E({ emulator: { gateway: { tokens: [TOKEN] } } });
    const refused = createDiscordIntake({
      token: 'not-the-token',
      apiUrl: e.emulator.url,
      sink: e.runtime,
      logger,
    });
    const failure = await refused.start().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DiscordGatewayError);
    expect((failure as Error).message).toMatch(/platforms\.discord\.token/);
    expect(e.emulator.gateway.connections()).toBe(0);
  });

  it('a bot whose privileged intents are off in the portal fails start() saying to switch on Message Content', async () => {
    e = await startDiscordE2E({ emulator: { gateway: { privilegedIntents: false } } });
    const blocked = createDiscordIntake({ token: TOKEN, apiUrl: e.emulator.url, sink: e.runtime, logger });
    await expect(blocked.start()).rejects.toThrow(/Message Content Intent.*Privileged Gateway Intents/);
    await vi.waitFor(() => expect(e?.emulator.gateway.connections()).toBe(0));
  });

  it('stop() closes the connection: no socket is left open', async () => {
    const { e } = await setUp();
    expect(e.emulator.gateway.connections()).toBe(1);
    await intake!.stop();
    intake = undefined;
    await vi.waitFor(() => expect(e.emulator.gateway.connections()).toBe(0));
    expect(e.emulator.gateway.sessions().filter((s) => s.connected)).toEqual([]);
  });

  it('the descriptor makes an intake only with gateway: true', () => {
    const context = {
      sink: { receive: async () => ({ status: 'unknown' as const }) },
      now: Date.now,
      logger,
    };
    const config = discordPlatform.configSchema.parse({ token: 't' });
    expect(config.gateway).toBe(false);
    expect(discordPlatform.createIntake?.(config, context)).toBeUndefined();
    const withGateway = discordPlatform.configSchema.parse({ token: 't', gateway: true });
    expect(discordPlatform.createIntake?.(withGateway, context)).toEqual(
      expect.objectContaining({ start: expect.any(Function), stop: expect.any(Function) }),
    );
  });
});
