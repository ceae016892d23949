/**
 * Discord intake: people's messages and button presses reach turnlog over
 * the gateway (docs/platforms.md, "Discord: the gateway"), through a
 * discord.js `Client` (https://discord.js.org/docs/packages/discord.js/main/Client:Class):
 *
 * - `messageCreate` (https://discord.com/developers/docs/events/gateway-events#message-create)
 *   from a person → a {@link MessageIntake}: space `discord:<channel id>`; in
 *   a thread the parent channel's space with `threadId` = the thread (so a
 *   turn rooted on it posts in that thread); in a DM `dm: true`. The bot's
 *   own messages, other bots' and system messages are not people talking.
 * - `interactionCreate` for a button
 *   (https://discord.com/developers/docs/interactions/receiving-and-responding)
 *   → a {@link ClickIntake}, answered within Discord's 3 s: a deferred update
 *   when accepted (the runtime edits the card through REST), otherwise an
 *   ephemeral reply with the result's text. When the runtime has not
 *   answered by `answerWithinMs` the interaction is deferred anyway, so the
 *   person never sees "This interaction failed".
 *
 * A press the runtime does not know, a runtime error and an interaction that
 * is not a button are kept through `deadLetter` (docs/http-api.md, "What an
 * intake cannot take").
 *
 * Intents: Guilds, Guild Messages, Message Content (privileged: without it
 * guild messages arrive empty) and Direct Messages; DMs also need the
 * Channel partial (discord.js caches no DM channel before its first message).
 */

import {
  type ButtonInteraction,
  type Channel,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  MessageFlags,
  Partials,
} from 'discord.js';
import type { ClickIntake, IntakeResult, IntakeSink, MessageIntake } from '../../actions/types.js';
import { PlatformStartupError } from '../../config-error.js';
import { redactRawText } from '../../events/scrub.js';
import type { IntakeContext, PlatformIntake } from '../../registry/descriptor.js';

/** Discord's deadline for an interaction's first answer is 3 s; this leaves room for the callback's round trip. */
export const DEFAULT_ANSWER_WITHIN_MS = 2_500;
/** Longest ephemeral reply text (a message's `content`). */
const MAX_REPLY_CHARS = 2_000;

export const DISCORD_INTAKE_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
] as const;

/** The gateway could not be joined: a refused token, or no gateway where `apiUrl` points. */
export class DiscordGatewayError extends PlatformStartupError {
  override readonly name = 'DiscordGatewayError';
}

export interface DiscordIntakeOptions {
  token: string;
  /** An emulator's origin; absent → discord.com. The gateway URL comes from its `GET /gateway/bot`. */
  apiUrl?: string;
  sink: IntakeSink;
  logger: IntakeContext['logger'];
  /** How long a button press waits for the runtime before it is deferred anyway (ms). Default {@link DEFAULT_ANSWER_WITHIN_MS}. */
  answerWithinMs?: number;
  /** Keeps a message or an interaction turnlog cannot take (IntakeContext.deadLetter: serve redacts and stores it). */
  deadLetter?: IntakeContext['deadLetter'];
}

/** What the person is told when the result carries no text. */
const DEFAULT_TEXT: Record<IntakeResult['status'], string> = {
  accepted: 'Done.',
  duplicate: 'Already recorded.',
  'already-decided': 'This was already decided.',
  unknown: 'turnlog does not know this button.',
  refused: 'This press was not counted.',
};

/** Where a message or a press happened, as the runtime names spaces: a thread is its parent's space. */
function placeOf(
  channel: Channel | null,
  channelId: string,
): { space: string; threadId?: string; dm: boolean } {
  if (channel?.isThread() && channel.parentId) {
    return { space: `discord:${channel.parentId}`, threadId: channel.id, dm: false };
  }
  return { space: `discord:${channelId}`, dm: channel?.isDMBased() ?? false };
}

const clip = (text: string) =>
  [...text].length > MAX_REPLY_CHARS ? [...text].slice(0, MAX_REPLY_CHARS).join('') : text;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A start-up failure, named so a person can fix it. */
function gatewayError(error: unknown, apiUrl: string | undefined): DiscordGatewayError {
  const code = (error as { code?: unknown } | null)?.code;
  const status = (error as { status?: unknown } | null)?.status;
  const message = describe(error);
  if (code === 'TokenInvalid' || status === 401 || /authentication failed/i.test(message)) {
    return new DiscordGatewayError(
      `the Discord gateway refused the bot token (platforms.discord.token): ${message}`,
      { cause: error },
    );
  }
  if (/disallowed intents/i.test(message)) {
    return new DiscordGatewayError(
      `the Discord gateway refused the Message Content intent (platforms.discord.gateway): switch on "Message Content Intent" under Bot → Privileged Gateway Intents in the developer portal (${message})`,
      { cause: error },
    );
  }
  return new DiscordGatewayError(
    `could not join the Discord gateway${apiUrl ? ` named by ${apiUrl}` : ''} (platforms.discord.gateway): ${message}`,
    { cause: error },
  );
}

/** The gateway intake: a connection kept from `start()` to `stop()`, no HTTP endpoint. */
export interface DiscordIntake extends PlatformIntake {
  /** Logs in and waits until the client is ready; rejects with a {@link DiscordGatewayError}. */
  start(): Promise<void>;
  /** Lets presses being answered finish, then closes the connection. */
  stop(): Promise<void>;
}

export function createDiscordIntake(opts: DiscordIntakeOptions): DiscordIntake {
  const answerWithin = opts.answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS;
  const { sink, logger } = opts;
  const keep = (reason: string, payload: unknown) => {
    logger.warn('Discord: kept an event turnlog could not take', { reason: redactRawText(reason) });
    opts.deadLetter?.(reason, JSON.stringify(payload));
  };
  let client: Client | null = null;
  /** Handlers still running: `stop()` lets them finish (each is bounded by its platform call). */
  const inFlight = new Set<Promise<void>>();

  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };

  async function onMessage(message: Message, self: string | undefined): Promise<void> {
    if (message.author.bot || message.author.id === self || message.system) return;
    const place = placeOf(message.channel, message.channelId);
    const intake: MessageIntake = {
      kind: 'message',
      ...place,
      messageId: message.id,
      text: message.content,
      user: { id: message.author.id, name: message.author.globalName ?? message.author.username },
      at: message.createdTimestamp,
      dedupeKey: message.id,
    };
    let result: IntakeResult;
    try {
      result = await sink.receive(intake);
    } catch (error) {
      keep(`the runtime could not take a message: ${describe(error)}`, intake);
      return;
    }
    // A message the runtime refuses is kept by the runtime itself (a dead letter with source `ingest`).
    if (result.status === 'unknown') {
      logger.warn('a Discord message was not recorded', {
        space: intake.space,
        messageId: intake.messageId,
        reason: result.text,
      });
    }
  }

  /** Tells the person the result (an ephemeral reply), or acknowledges quietly when it was accepted. */
  async function answer(interaction: ButtonInteraction, result: IntakeResult): Promise<void> {
    if (result.status === 'accepted') {
      await interaction.deferUpdate();
      return;
    }
    await interaction.reply({
      content: clip(result.text ?? DEFAULT_TEXT[result.status]),
      flags: MessageFlags.Ephemeral,
      // The text may quote a person's name or a card: it pings no one.
      allowedMentions: { parse: [] },
    });
  }

  async function onButton(interaction: ButtonInteraction): Promise<void> {
    const place = placeOf(interaction.channel, interaction.channelId);
    const click: ClickIntake = {
      kind: 'click',
      space: place.space,
      ...(place.threadId === undefined ? {} : { threadId: place.threadId }),
      messageId: interaction.message.id,
      action: interaction.customId,
      user: { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username },
      at: interaction.createdTimestamp,
      dedupeKey: interaction.id,
    };
    const payload = { interaction: interaction.id, ...click };
    const received = sink.receive(click).then(
      (result) => {
        if (result.status === 'unknown')
          keep(`a click turnlog did not take: ${result.text ?? 'an unknown button'}`, payload);
        return { result };
      },
      (error: unknown) => {
        keep(`the runtime could not take a click: ${describe(error)}`, payload);
        return { error };
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), answerWithin);
    });
    const first = await Promise.race([received, late]);
    clearTimeout(timer);
    if (first === 'late') {
      // Discord's 3 s are nearly up: acknowledge now, so the press does not fail in front of the person.
      await interaction.deferUpdate();
      const outcome = await received;
      if ('error' in outcome || outcome.result.status !== 'accepted') {
        logger.warn('a Discord button press was answered late; the person was not told the result', {
          messageId: click.messageId,
          action: click.action,
          result: 'error' in outcome ? describe(outcome.error) : outcome.result.status,
        });
      }
      return;
    }
    if ('error' in first) {
      logger.warn('a Discord button press could not be recorded', {
        messageId: click.messageId,
        action: click.action,
        error: describe(first.error),
      });
      await answer(interaction, {
        status: 'unknown',
        text: 'turnlog could not record this press; try again.',
      });
      return;
    }
    await answer(interaction, first.result);
  }

  function onInteraction(interaction: Interaction): Promise<void> {
    if (interaction.isButton()) return onButton(interaction);
    // Not ours (turnlog registers no commands or menus): kept, and the person told, rather than failing silently.
    keep(
      `a Discord interaction of type ${interaction.type} that is not a button: turnlog registers no commands or menus`,
      {
        interaction: interaction.id,
        type: interaction.type,
        channelId: interaction.channelId,
        user: interaction.user.id,
        ...(interaction.isCommand() ? { command: interaction.commandName } : {}),
        ...(interaction.isMessageComponent() ? { customId: interaction.customId } : {}),
      },
    );
    if (interaction.isRepliable()) {
      return interaction
        .reply({ content: 'turnlog only handles its own buttons.', flags: MessageFlags.Ephemeral })
        .then(() => undefined);
    }
    return Promise.resolve();
  }

  const guarded = (what: string, work: () => Promise<void>) =>
    track(
      work().catch((error: unknown) => {
        logger.warn(`Discord ${what} failed`, { error: describe(error) });
      }),
    );

  return {
    async start() {
      if (client) return;
      const created = new Client({
        intents: [...DISCORD_INTAKE_INTENTS],
        partials: [Partials.Channel],
        rest: opts.apiUrl === undefined ? {} : { api: `${opts.apiUrl.replace(/\/+$/, '')}/api` },
      });
      created.on(Events.MessageCreate, (message) =>
        guarded('message intake', () => onMessage(message, created.user?.id)),
      );
      created.on(Events.InteractionCreate, (interaction) =>
        guarded('interaction intake', () => onInteraction(interaction)),
      );
      created.on(Events.ShardError, (error) =>
        logger.warn('Discord gateway error', { error: describe(error) }),
      );
      created.on(Events.ShardReconnecting, () => logger.info('Discord gateway reconnecting'));
      const ready = new Promise<void>((resolve) => created.once(Events.ClientReady, () => resolve()));
      try {
        await created.login(opts.token);
        await ready;
      } catch (error) {
        await created.destroy();
        throw gatewayError(error, opts.apiUrl);
      }
      client = created;
      logger.info('Discord gateway connected', { bot: created.user?.tag, id: created.user?.id });
    },
    async stop() {
      const current = client;
      client = null;
      if (!current) return;
      // Presses being answered finish first (their replies need no gateway, but a client that still exists).
      await Promise.allSettled([...inFlight]);
      await current.destroy();
    },
    // The gateway has no request to verify: a refused token fails `start()` instead.
    refused: () => 0,
  };
}
