// spec: docs/emulators.md "Discord gateway" — `GET /api/v10/gateway/bot` names a minimal Gateway v10 that
// discord.js's Client accepts: HELLO, IDENTIFY (token checked: 4004), READY, heartbeats acked, RESUME,
// MESSAGE_CREATE for /_emulator/inbound, INTERACTION_CREATE for /_emulator/click answered through
// POST /interactions/{id}/{token}/callback within 3 s.
import { inflateSync } from 'node:zlib';
import {
  type ButtonInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Message,
  MessageFlags,
  Partials,
} from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import {
  type DiscordEmulatorOptions,
  GatewayClose,
  GatewayOp,
} from '../../../src/emulators/discord/index.js';
import { type Harness, personSays, startHarness } from './harness.js';

const TOKEN = 'gateway-bot-token';
const CHANNEL = '1900000000000000101';
const DM = '1900000000000000102';
const PERSON = '1950000000000000101';

let current: Harness | undefined;
const clients: Client[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const client of clients.splice(0)) await client.destroy();
  await current?.close();
  current = undefined;
});

async function harness(opts: Omit<DiscordEmulatorOptions, 'now'> = {}) {
  current = await startHarness({ channels: [{ id: DM, type: 1, recipientId: PERSON }], ...opts });
  return current;
}

const ALL_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

/** A discord.js Client on the emulator, logged in and fully ready. */
async function connect(h: Harness, opts: { token?: string; intents?: GatewayIntentBits[] } = {}) {
  const client = new Client({
    intents: opts.intents ?? ALL_INTENTS,
    partials: [Partials.Channel],
    rest: { api: `${h.emulator.url}/api`, retries: 0 },
  });
  clients.push(client);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(opts.token ?? TOKEN);
  await ready;
  return client;
}

/** The bot posts a card with two buttons through REST (same token as the gateway's bot). */
async function postCard(h: Harness, channel = CHANNEL) {
  return h.client(TOKEN).api.channels.createMessage(channel, {
    content: 'Approve `rm -rf build`?',
    components: [
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: 'Approve', custom_id: 'approve' },
          { type: 2, style: 4, label: 'Reject', custom_id: 'reject' },
        ],
      },
    ],
  });
}

async function click(h: Harness, body: Record<string, unknown>) {
  return h.raw('POST', '/_emulator/click', body);
}

/** A raw WebSocket on the gateway: the payloads as they arrive, parsed. */
async function rawSocket(url: string) {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const received: { op: number; t?: string; s?: number; d: unknown }[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.on('message', (data) => received.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, received, closed, send: (payload: unknown) => socket.send(JSON.stringify(payload)) };
}

const identify = (token: string) => ({
  op: GatewayOp.Identify,
  d: {
    token,
    intents: 1 | (1 << 9) | (1 << 15),
    properties: { os: 'linux', browser: 'test', device: 'test' },
  },
});

describe('discord emulator: the gateway', () => {
  it('GET /gateway/bot names ws://…/gateway with one shard; a discord.js Client logs in and gets READY', async () => {
    const h = await harness();
    const info = await h.client(TOKEN).rest.get('/gateway/bot');
    expect(info).toMatchObject({
      url: `${h.emulator.url.replace('http', 'ws')}/gateway`,
      shards: 1,
      session_start_limit: { max_concurrency: 1 },
    });
    const client = await connect(h);
    // The gateway's bot is the REST caller with the same token.
    const me = await h.client(TOKEN).api.users.getCurrent();
    expect(client.user?.id).toBe(me.id);
    expect(client.user?.bot).toBe(true);
    expect(client.application?.id).toBe(me.id);
    expect(client.guilds.cache.size).toBe(1);
    expect(h.emulator.gateway.sessions()).toEqual([
      expect.objectContaining({ bot: { id: me.id, username: me.username }, connected: true }),
    ]);
    const shown = await h.raw('GET', '/_emulator/gateway');
    expect(shown.body).toMatchObject({
      url: h.emulator.gateway.url,
      connections: 1,
      sessions: [{ bot: { id: me.id }, connected: true, seq: expect.any(Number) }],
    });
  });

  it('acks heartbeats (a short interval: the client beats on its own)', async () => {
    const h = await harness({ gateway: { heartbeatIntervalMs: 100 } });
    const client = await connect(h);
    await vi.waitFor(() => expect(h.emulator.gateway.sessions()[0]?.heartbeats).toBeGreaterThanOrEqual(3), {
      timeout: 10_000,
    });
    // discord.js measured a round trip: its heartbeat was acknowledged.
    expect(client.ws.ping).toBeGreaterThanOrEqual(0);
  });

  it('/_emulator/inbound → MESSAGE_CREATE with the content, in a guild channel, a thread and a DM', async () => {
    const h = await harness();
    const client = await connect(h);
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message));
    const top = await personSays(h, { space: CHANNEL, text: 'deploy please', user: PERSON });
    const inThread = await personSays(h, {
      space: CHANNEL,
      text: 'and the docs',
      threadId: top.messageId,
      user: PERSON,
    });
    const dm = await personSays(h, { space: DM, text: 'psst', user: PERSON });
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 10_000 });
    const [first, second, third] = seen;
    expect(first).toMatchObject({ id: top.messageId, channelId: CHANNEL, content: 'deploy please' });
    expect(first?.author.id).toBe(PERSON);
    expect(first?.author.bot).toBe(false);
    expect(first?.inGuild()).toBe(true);
    expect(second).toMatchObject({
      id: inThread.messageId,
      channelId: top.messageId,
      content: 'and the docs',
    });
    expect(second?.channel.isThread()).toBe(true);
    expect(second?.channel.isThread() && second.channel.parentId).toBe(CHANNEL);
    expect(third).toMatchObject({ id: dm.messageId, channelId: DM, content: 'psst' });
    expect(third?.channel.isDMBased()).toBe(true);
  });

  it("echoes the bot's own REST posts as MESSAGE_CREATE (authored by the bot)", async () => {
    const h = await harness();
    const client = await connect(h);
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message));
    const card = await postCard(h);
    await vi.waitFor(() => expect(seen.map((m) => m.id)).toEqual([card.id]), { timeout: 10_000 });
    expect(seen[0]?.author.id).toBe(client.user?.id);
  });

  it('without MESSAGE_CONTENT a guild message arrives with empty content (a DM keeps it); without GUILD_MESSAGES none arrive', async () => {
    const h = await harness();
    const client = await connect(h, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
    });
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message));
    await personSays(h, { space: CHANNEL, text: 'secret plans', user: PERSON });
    await personSays(h, { space: DM, text: 'dm text', user: PERSON });
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    expect(seen.map((m) => m.content)).toEqual(['', 'dm text']);

    const dmOnly = await connect(h, { intents: [GatewayIntentBits.DirectMessages] });
    const dmSeen: Message[] = [];
    dmOnly.on(Events.MessageCreate, (message) => dmSeen.push(message));
    await personSays(h, { space: CHANNEL, text: 'not for you', user: PERSON });
    const dm = await personSays(h, { space: DM, text: 'for you', user: PERSON });
    await vi.waitFor(() => expect(dmSeen.map((m) => m.id)).toEqual([dm.messageId]), { timeout: 10_000 });
    // The first client got both meanwhile: the DM-only one missed the guild message, not lagged behind.
    await vi.waitFor(() => expect(seen).toHaveLength(4), { timeout: 10_000 });
    expect(dmSeen).toHaveLength(1);
  });

  it('/_emulator/click → INTERACTION_CREATE for the button; an ephemeral reply comes back in the click answer', async () => {
    const h = await harness();
    const client = await connect(h);
    const card = await postCard(h);
    const pressed: ButtonInteraction[] = [];
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isButton()) return;
      pressed.push(interaction);
      await interaction.reply({ content: 'Noted: approved.', flags: MessageFlags.Ephemeral });
    });
    const res = await click(h, { messageId: card.id, action: 'approve', user: PERSON });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true, status: 204, reply: 'Noted: approved.' });
    expect(pressed).toHaveLength(1);
    const [interaction] = pressed;
    expect(interaction?.customId).toBe('approve');
    expect(interaction?.message.id).toBe(card.id);
    expect(interaction?.channelId).toBe(CHANNEL);
    expect(interaction?.user.id).toBe(PERSON);
    expect(interaction?.inGuild()).toBe(true);
    const calls = (await h.raw('GET', '/_emulator/calls')).body.calls as { path: string; details?: object }[];
    const callback = calls.find((c) => c.path.endsWith('/callback'));
    expect(callback).toMatchObject({
      status: 204,
      space: CHANNEL,
      messageId: card.id,
      text: 'Noted: approved.',
      details: { callbackType: 4, ephemeral: true },
    });
  });

  it('a deferred update (type 6) is delivered without a reply; a second answer is 40060', async () => {
    const h = await harness();
    const client = await connect(h);
    const card = await postCard(h);
    const answered: { id: string; token: string }[] = [];
    const refused: unknown[] = [];
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isButton()) return;
      // A callback type the emulator does not take (9: a modal) is refused naming the field; the interaction stays open.
      const modal = await h.raw(
        'POST',
        `/api/v10/interactions/${interaction.id}/${interaction.token}/callback`,
        {
          type: 9,
        },
      );
      refused.push(modal.body);
      await interaction.deferUpdate();
      answered.push({ id: interaction.id, token: interaction.token });
    });
    expect((await click(h, { messageId: card.id, action: 'reject' })).body).toEqual({
      delivered: true,
      status: 204,
    });
    await vi.waitFor(() => expect(answered).toHaveLength(1));
    expect(refused).toEqual([
      {
        code: 50035,
        message: 'Invalid Form Body',
        errors: { type: { _errors: [expect.objectContaining({ code: 'ENUM_TYPE_COERCE' })] } },
      },
    ]);
    const again = await h.raw(
      'POST',
      `/api/v10/interactions/${answered[0]!.id}/${answered[0]!.token}/callback`,
      {
        type: 6,
      },
    );
    expect(again).toMatchObject({ status: 400, body: { code: 40060 } });
  });

  it('an interaction nobody answers within the deadline is not delivered, and a late answer is 10062 Unknown interaction', async () => {
    const h = await harness({ gateway: { interactionTimeoutMs: 50 } });
    const client = await connect(h);
    const card = await postCard(h);
    const seen: ButtonInteraction[] = [];
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isButton()) seen.push(interaction);
    });
    expect((await click(h, { messageId: card.id, action: 'approve' })).body).toEqual({
      delivered: false,
      status: 0,
    });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    await expect(seen[0]!.deferUpdate()).rejects.toMatchObject({ status: 404, code: 10062 });
  });

  it('a click names what is wrong: no such button (404, listing the buttons), a message without buttons (400); no bot connected → not delivered', async () => {
    const h = await harness();
    const card = await postCard(h);
    expect((await click(h, { messageId: card.id, action: 'approve' })).body).toEqual({
      delivered: false,
      status: 0,
    });
    await connect(h);
    const wrong = await click(h, { messageId: card.id, action: 'maybe' });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error).toBe(`message ${card.id} has no button "maybe"; its buttons: approve, reject`);
    const plain = await personSays(h, { space: CHANNEL, text: 'no buttons here' });
    const none = await click(h, { messageId: plain.messageId, action: 'approve' });
    expect(none).toMatchObject({ status: 400, body: { error: `message ${plain.messageId} has no buttons` } });
    const missing = await click(h, { messageId: '1900000000000009999', action: 'approve' });
    expect(missing.status).toBe(404);
  });

  it('refuses a token it does not know: 401 on /gateway/bot (login fails) and 4004 on IDENTIFY', async () => {
    const h = await harness({ gateway: { tokens: [TOKEN] } });
    const client = new Client({ intents: ALL_INTENTS, rest: { api: `${h.emulator.url}/api`, retries: 0 } });
    clients.push(client);
    await expect(client.login('wrong-token')).rejects.toMatchObject({ code: 'TokenInvalid' });

    const raw = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    await vi.waitFor(() => expect(raw.received[0]).toMatchObject({ op: GatewayOp.Hello }));
    raw.send(identify('wrong-token'));
    expect(await raw.closed).toBe(GatewayClose.AuthenticationFailed);
    expect(h.emulator.gateway.sessions()).toEqual([]);
  });

  it('closes a payload before IDENTIFY with 4003 and an unknown opcode with 4001; a bad version with 4012', async () => {
    const h = await harness();
    const early = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    early.send({ op: GatewayOp.RequestGuildMembers, d: {} });
    expect(await early.closed).toBe(GatewayClose.NotAuthenticated);
    const unknown = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    unknown.send({ op: 99, d: null });
    expect(await unknown.closed).toBe(GatewayClose.UnknownOpcode);
    const old = await rawSocket(`${h.emulator.gateway.url}?v=6&encoding=json`);
    expect(await old.closed).toBe(GatewayClose.InvalidApiVersion);
  });

  it('RESUME replays what the session missed, then RESUMED; an unknown session gets op 9', async () => {
    const h = await harness();
    const first = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    first.send(identify(TOKEN));
    await vi.waitFor(() => expect(first.received.map((p) => p.t)).toContain('GUILD_CREATE'));
    const ready = first.received.find((p) => p.t === 'READY')!.d as { session_id: string };
    const lastSeq = Math.max(...first.received.map((p) => p.s ?? 0));
    // The connection drops (not a clean close: the session stays resumable).
    first.socket.close(4100);
    await first.closed;
    const missed = await personSays(h, { space: CHANNEL, text: 'while you were away' });

    const second = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    second.send({ op: GatewayOp.Resume, d: { token: TOKEN, session_id: ready.session_id, seq: lastSeq } });
    await vi.waitFor(() => expect(second.received.map((p) => p.t)).toContain('RESUMED'));
    const replayed = second.received.filter((p) => p.op === GatewayOp.Dispatch);
    expect(replayed.map((p) => p.t)).toEqual(['CHANNEL_CREATE', 'MESSAGE_CREATE', 'RESUMED']);
    expect(replayed[1]?.d).toMatchObject({ id: missed.messageId });
    expect(replayed.map((p) => p.s)).toEqual([lastSeq + 1, lastSeq + 2, lastSeq + 3]);

    const stranger = await rawSocket(`${h.emulator.gateway.url}?v=10&encoding=json`);
    stranger.send({ op: GatewayOp.Resume, d: { token: TOKEN, session_id: 'nope', seq: 1 } });
    await vi.waitFor(() =>
      expect(stranger.received).toContainEqual(expect.objectContaining({ op: 9, d: false })),
    );
  });

  it('after a dropped connection discord.js resumes its session and gets the message it missed', async () => {
    const h = await harness();
    const client = await connect(h);
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message));
    const [before] = h.emulator.gateway.sessions();
    const resumed = new Promise<void>((resolve) => client.once(Events.ShardResume, () => resolve()));
    h.emulator.gateway.drop();
    await vi.waitFor(() => expect(h.emulator.gateway.sessions()[0]?.connected).toBe(false));
    const missed = await personSays(h, { space: CHANNEL, text: 'said during the outage' });
    await resumed;
    await vi.waitFor(() => expect(seen.map((m) => m.id)).toEqual([missed.messageId]), { timeout: 10_000 });
    expect(h.emulator.gateway.sessions()).toEqual([
      expect.objectContaining({ sessionId: before?.sessionId, connected: true }),
    ]);
  });

  it('compress=zlib-stream: every payload is a deflate chunk ending in a sync flush', async () => {
    const h = await harness();
    const socket = new WebSocket(`${h.emulator.gateway.url}?v=10&encoding=json&compress=zlib-stream`);
    sockets.push(socket);
    const chunks: Buffer[] = [];
    socket.on('message', (data) => chunks.push(data as Buffer));
    await vi.waitFor(() => expect(chunks).toHaveLength(1));
    const chunk = chunks[0]!;
    expect([...chunk.subarray(-4)]).toEqual([0, 0, 0xff, 0xff]);
    expect(JSON.parse(inflateSync(chunk, { finishFlush: 2 }).toString())).toMatchObject({
      op: GatewayOp.Hello,
      d: { heartbeat_interval: 41_250 },
    });
  });

  it('a second client connects after the first is destroyed; closing leaves no socket open', async () => {
    const h = await harness();
    const first = await connect(h);
    await first.destroy();
    await vi.waitFor(() => expect(h.emulator.gateway.connections()).toBe(0));
    const second = await connect(h);
    const seen: Message[] = [];
    second.on(Events.MessageCreate, (message) => seen.push(message));
    const posted = await personSays(h, { space: CHANNEL, text: 'still there?' });
    await vi.waitFor(() => expect(seen.map((m) => m.id)).toEqual([posted.messageId]));
    expect(h.emulator.gateway.connections()).toBe(1);
    // Closing the emulator closes the gateway's sockets too.
    const gone = new Promise<void>((resolve) => second.once(Events.ShardReconnecting, () => resolve()));
    await h.emulator.close();
    current = undefined;
    await gone;
    expect(h.emulator.gateway.connections()).toBe(0);
  });
});
