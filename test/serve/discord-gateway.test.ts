// spec: issue 13 item 1 (Discord) — `turnlog serve` with platforms.discord.gateway joins the gateway named
// by GET /api/v10/gateway/bot once the runtime is ready, a person's message and a button press reach the
// runtime through it, a refused token is a start-up error naming platforms.discord.token, and closing
// serve closes the connection.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DiscordEmulator, startDiscordEmulator } from '../../src/emulators/discord/index.js';
import { DiscordGatewayError } from '../../src/platforms/discord/index.js';
import { type Serve, startServe } from '../../src/serve/index.js';
import { emulatorCall } from '../emulators/inspection.js';
import { ndjson, postEvents } from './serve.helpers.js';

const CHANNEL = '1800000000000000301';
const SPACE = `discord:${CHANNEL}`;
const TOKEN = 'discord-serve-token';
const base = { ingest: { port: 0 }, log: { level: 'silent' }, store: { path: ':memory:' } };

let emulator: DiscordEmulator | undefined;
let serve: Serve | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
});

const discordConfig = (url: string, gateway = true) => ({
  ...base,
  platforms: { discord: { apiUrl: url, token: 'env:DISCORD_BOT', gateway } },
});

async function ingest(events: Record<string, unknown>[]) {
  const res = await postEvents(serve!.url, ndjson(...events.map((event) => ({ space: SPACE, ...event }))));
  expect(res.status).toBe(202);
}

describe('serve: the Discord gateway', () => {
  it('a refused bot token is a start-up error naming platforms.discord.token', async () => {
    emulator = await startDiscordEmulator({ gateway: { tokens: [TOKEN] } });
    const start = startServe({ config: discordConfig(emulator.url), env: { DISCORD_BOT: 'revoked' } });
    await expect(start).rejects.toBeInstanceOf(DiscordGatewayError);
    await expect(start).rejects.toThrow(/platforms\.discord\.token/);
    expect(emulator.gateway.connections()).toBe(0);
  });

  it('without gateway: true serve does not connect', async () => {
    emulator = await startDiscordEmulator({ gateway: { tokens: [TOKEN] } });
    serve = await startServe({ config: discordConfig(emulator.url, false), env: { DISCORD_BOT: TOKEN } });
    expect(emulator.gateway.sessions()).toEqual([]);
  });

  it("connects at start; a press on the card of a turn in the person's thread is answered in time; close() disconnects", async () => {
    emulator = await startDiscordEmulator({ gateway: { tokens: [TOKEN] } });
    serve = await startServe({ config: discordConfig(emulator.url), env: { DISCORD_BOT: TOKEN } });
    expect(emulator.gateway.sessions()).toEqual([expect.objectContaining({ connected: true })]);

    const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: CHANNEL,
      text: 'ship it',
    });
    await ingest([
      { type: 'turn_started', turnId: 't1', root: { messageId: person.messageId } },
      { type: 'policy_request', turnId: 't1', requestId: 'r1', command: 'deploy', args: ['prod'] },
    ]);
    let cardId = '';
    await vi.waitFor(
      () => {
        const card = emulator!.state
          .messages(CHANNEL)
          .find((m) => m.thread === person.messageId && (m.buttons ?? []).length > 0);
        expect(card).toBeDefined();
        cardId = card!.id;
      },
      { timeout: 10_000, interval: 50 },
    );
    const pressed = await emulatorCall(emulator.url, 'click', { messageId: cardId, action: 'approve' });
    // Answered before the emulator's 3 s deadline, whatever the runtime made of it.
    expect(pressed).toMatchObject({ delivered: true, status: 204 });

    await serve.close();
    serve = undefined;
    await vi.waitFor(() => expect(emulator!.gateway.connections()).toBe(0));
  });
});
