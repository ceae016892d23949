/**
 * Issue 25.3 (docs/http-api.md, the run page): with `runs.publicUrl` set, a turn's live log and
 * its final frame carry the "Full log" link to its run page, in each
 * platform's own form, and the emulators' messages view shows its URL:
 * Slack a link in the card body (kept on the closed card), Google Chat a link
 * in the log's text, Discord a link button in Components V2. The link is the
 * same on every frame (no change of its own), and it opens the page.
 * Without `runs.publicUrl` no log carries one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { startDiscordEmulator } from '../../../src/emulators/discord/index.js';
import { startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { type Serve, startServe } from '../../../src/serve/index.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { ndjson, postEvents } from '../serve.helpers.js';

const PUBLIC = 'https://turnlog.example.test';
let emulator: EmulatorServer | undefined;
let serve: Serve | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
});

interface Case {
  platform: 'slack' | 'gchat' | 'discord';
  channel: string;
  space: string;
  start(): Promise<EmulatorServer>;
  config(url: string): Record<string, unknown>;
  env: Record<string, string>;
}

const cases: Case[] = [
  {
    platform: 'slack',
    channel: 'C0RUNPAGE1',
    space: 'slack:C0RUNPAGE1',
    start: () => startSlackEmulator(),
    config: (url) => ({ slack: { apiUrl: url, token: 'env:SLACK_BOT' } }),
    env: { SLACK_BOT: 'xoxb-good' },
  },
  {
    platform: 'gchat',
    channel: 'spaces/RUNPAGE',
    space: 'gchat:spaces/RUNPAGE',
    start: () => startGchatEmulator(),
    config: (url) => ({ gchat: { apiUrl: url } }),
    env: {},
  },
  {
    platform: 'discord',
    channel: '180000000000000990',
    space: 'discord:180000000000000990',
    start: () => startDiscordEmulator(),
    config: (url) => ({ discord: { apiUrl: url, token: 'env:DISCORD_BOT' } }),
    env: { DISCORD_BOT: 'run-page-bot' },
  },
];

/** Every URL a person can open on a message: a link button's, or a link in its text or card. */
function urlsOf(message: EmulatedMessage): string[] {
  const text = [message.text, message.card?.text ?? ''].join('\n');
  const inText = [...text.matchAll(/https?:\/\/[^\s|<>()\]]+/g)].map((match) => match[0]);
  return [...(message.buttons ?? []).flatMap((button) => button.url ?? []), ...inText];
}

async function runTurn(c: Case, runs: Record<string, unknown> | undefined) {
  emulator = await c.start();
  serve = await startServe({
    config: {
      ingest: { port: 0 },
      log: { level: 'silent' },
      store: { path: ':memory:' },
      platforms: c.config(emulator.url),
      ...(runs ? { runs } : {}),
    },
    env: c.env,
  });
  const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
    space: c.channel,
    text: 'check the build',
  });
  const event = (rest: Record<string, unknown>) => ({ space: c.space, turnId: 'R1', ...rest });
  const sent = await postEvents(
    serve.url,
    ndjson(
      event({ type: 'turn_started', root: { messageId: person.messageId }, title: 'Build' }),
      event({ type: 'tool_call', callId: 'c1', tool: 'Bash', input: { command: 'npm test' } }),
    ),
  );
  expect(sent.status).toBe(202);
  return person.messageId;
}

/** The turn's log: the message in the person's thread that shows its tool. */
const logOf = (em: EmulatorServer, channel: string, root: string) =>
  em.state
    .messages(channel)
    .find((m) => m.id !== root && !m.deleted && `${m.text}${m.card?.text ?? ''}`.includes('Bash'));

describe.each(cases)('the "Full log" link on $platform', (c) => {
  it('is on the live log and stays on the final frame, and opens the run page', async () => {
    const root = await runTurn(c, { publicUrl: PUBLIC });
    const view = await (await fetch(`${serve!.url}/v1/turns/R1`)).json();
    const runUrl = (view as { runUrl: string }).runUrl;
    expect(runUrl).toMatch(new RegExp(`^${PUBLIC}/runs/R1\\?t=[A-Za-z0-9_-]{43}$`));
    await vi.waitFor(
      () => expect(urlsOf(logOf(emulator!, c.channel, root) as EmulatedMessage)).toContain(runUrl),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    await postEvents(
      serve!.url,
      ndjson(
        {
          type: 'tool_result',
          space: c.space,
          turnId: 'R1',
          callId: 'c1',
          tool: 'Bash',
          ok: true,
          output: 'green',
        },
        { type: 'turn_ended', space: c.space, turnId: 'R1', outcome: 'ok' },
      ),
    );
    await vi.waitFor(
      async () => {
        const ended = (await (await fetch(`${serve!.url}/v1/turns/R1`)).json()) as {
          state: string;
          logMessages: { final: boolean }[];
        };
        expect(ended.state).toBe('ended');
        const log = logOf(emulator!, c.channel, root) as EmulatedMessage;
        expect(log.edits).toBeGreaterThan(0);
        expect(`${log.text}${log.card?.text ?? ''}`).toMatch(/✅|Done/i);
        expect(urlsOf(log)).toContain(runUrl);
      },
      { timeout: 10_000, interval: 50 },
    );
    const link = new URL(runUrl);
    const page = await fetch(`${serve!.url}${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('green');
  });

  it('is absent without runs.publicUrl', async () => {
    const root = await runTurn(c, undefined);
    await vi.waitFor(() => expect(logOf(emulator!, c.channel, root)).toBeDefined(), {
      timeout: 10_000,
      interval: 50,
    });
    expect(urlsOf(logOf(emulator!, c.channel, root) as EmulatedMessage)).toEqual([]);
  });
});
