/**
 * The three platforms for the two-way suite: each starts its emulator, gives
 * `turnlog serve` the config that points its surface and its intake at it,
 * registers turnlog as the app (Slack: the signing secret; Google Chat: the
 * JWT audience; Discord: the bot connects to the emulator's gateway), and
 * lets a person post and press buttons through the emulator.
 */
import { startDiscordEmulator } from '../../../src/emulators/discord/index.js';
import { startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { asSeen, emulatorCall } from '../../emulators/inspection.js';

export interface ClickAnswer {
  delivered: boolean;
  status: number;
  reply?: string;
}

export interface RunningPlatform {
  /** The platform's own space id (`spaces/TWOWAY`, a Slack channel, a Discord channel). */
  space: string;
  /** `platforms` of serve's config. */
  config: Record<string, unknown>;
  /** Registers turnlog serve (at `serveUrl`) as the app, where the platform needs it. */
  connect(serveUrl: string): Promise<void>;
  personPosts(text: string): Promise<{ messageId: string; threadId: string }>;
  click(messageId: string, action: string, user: string): Promise<ClickAnswer>;
  /** Adds an emulator fault rule (`POST /_emulator/faults`). */
  fault(rule: Record<string, unknown>): Promise<void>;
  /** The platform user id the emulator gives the person named `name` (as posts and presses carry it). */
  userId(name: string): string;
  /** Every message of the space (threads included) as a person sees it: text plus card text. */
  messages(): Promise<EmulatedMessage[]>;
  close(): Promise<void>;
}

export interface PlatformSetup {
  id: 'gchat' | 'slack' | 'discord';
  start(): Promise<RunningPlatform>;
}

/**
 * A running emulator as the suite drives it; `appSecret` (Slack: the signing
 * secret; Google Chat: the JWT audience) registers serve's
 * `/v1/platforms/<id>/events` as the app on `connect`, where the platform
 * delivers to an app over HTTP (Discord's bot connects to the gateway instead).
 */
function running(
  id: PlatformSetup['id'],
  emulator: { url: string; close(): Promise<void> },
  space: string,
  config: Record<string, unknown>,
  appSecret?: string,
): RunningPlatform {
  const { url } = emulator;
  return {
    space,
    config,
    async connect(serveUrl) {
      if (appSecret === undefined) return;
      await emulatorCall(url, 'app', { url: `${serveUrl}/v1/platforms/${id}/events`, secret: appSecret });
    },
    personPosts: (text) =>
      emulatorCall<{ messageId: string; threadId: string }>(url, 'inbound', { space, text, user: 'alice' }),
    click: (messageId, action, user) => emulatorCall<ClickAnswer>(url, 'click', { messageId, action, user }),
    fault: async (rule) => void (await emulatorCall(url, 'faults', { rules: [rule] })),
    // Google Chat names people `users/<id>`; Slack and Discord take the id as given.
    userId: (name) => (id === 'gchat' ? `users/${name}` : name),
    async messages() {
      const res = await fetch(`${url}/_emulator/messages?space=${encodeURIComponent(space)}`);
      const { messages } = (await res.json()) as { messages: EmulatedMessage[] };
      return messages.map(asSeen);
    },
    close: () => emulator.close(),
  };
}

const SLACK_SECRET = 'two-way-slack-signing-secret-0123';
const GCHAT_AUDIENCE = '123456789012';
const DISCORD_TOKEN = 'two-way-discord-bot-token';

export const PLATFORM_SETUPS: PlatformSetup[] = [
  {
    id: 'gchat',
    async start() {
      const emulator = await startGchatEmulator({ limits: [] });
      return running(
        'gchat',
        emulator,
        'spaces/TWOWAY',
        {
          gchat: {
            apiUrl: emulator.url,
            events: { audience: GCHAT_AUDIENCE, jwksUrl: `${emulator.url}/_emulator/jwks` },
          },
        },
        GCHAT_AUDIENCE,
      );
    },
  },
  {
    id: 'slack',
    async start() {
      const emulator = await startSlackEmulator({ limits: [] });
      return running(
        'slack',
        emulator,
        'C0TWOWAY01',
        { slack: { apiUrl: emulator.url, token: 'xoxb-two-way', signingSecret: SLACK_SECRET } },
        SLACK_SECRET,
      );
    },
  },
  {
    id: 'discord',
    async start() {
      const emulator = await startDiscordEmulator({ limits: [] });
      return running('discord', emulator, '1800000000000000077', {
        discord: { apiUrl: emulator.url, token: DISCORD_TOKEN, gateway: true },
      });
    },
  },
];
