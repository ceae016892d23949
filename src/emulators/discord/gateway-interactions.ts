/**
 * The emulated gateway's interactions: a click on a bot's button becomes an
 * INTERACTION_CREATE sent to the app whose message it is (on its newest
 * connection), which must answer (`POST /interactions/{id}/{token}/callback`)
 * within the deadline (Discord: 3 s); later the interaction is unknown
 * (10062), as on Discord.
 */
import { randomBytes } from 'node:crypto';
import { EmulatorInputError } from '../core/index.js';
import type { ClickInput, ClickResult } from '../core/platform-handler.js';
import type { BotUser } from './apps.js';
import { ChannelType, DEFAULT_PERSON_ID, type ResolvedChannel, spaceOf } from './channels.js';
import { componentButtons } from './components.js';
import { buttonInteractionPayload, channelOfMessage } from './gateway-payloads.js';
import { type DiscordWorld, messageData } from './world.js';

/** "you must send an initial response within 3 seconds of receiving the event" (receiving-and-responding). */
export const INTERACTION_DEADLINE_MS = 3_000;
/** Interactions remembered after their answer or deadline (for 40060 / 10062). */
const INTERACTION_MEMORY = 1_000;

export interface InteractionAnswer {
  type: number;
  /** The reply's text (type 4). */
  content?: string;
  ephemeral: boolean;
  status: number;
}

/** An interaction sent to a bot, waiting for (or done with) its callback. */
export interface PendingInteraction {
  id: string;
  token: string;
  appId: string;
  space: string;
  thread: string | null;
  messageId: string;
  state: 'waiting' | 'answered' | 'expired';
  answer?: InteractionAnswer;
}

interface Waiting {
  pending: PendingInteraction;
  resolve(result: ClickResult): void;
  timer: NodeJS.Timeout;
}

const token = () => randomBytes(32).toString('base64url');

/** A connected app an interaction can be sent to. */
export interface InteractionTarget {
  bot: BotUser;
  /** Sends a dispatch to the app's session, announcing `channel` first when the session has not seen it. */
  deliver(world: DiscordWorld, channel: ResolvedChannel, t: string, d: unknown): Promise<void>;
}

export interface InteractionDesk {
  /** INTERACTION_CREATE to the app that posted the message; resolves with its answer or after the deadline. */
  click(world: DiscordWorld, input: ClickInput): Promise<ClickResult>;
  interaction(id: string): PendingInteraction | undefined;
  /** Records the callback's answer and resolves the click waiting on it. */
  answer(pending: PendingInteraction, answer: InteractionAnswer): void;
  /** Resolves every click still waiting as not delivered (the gateway is going away). */
  settleAll(): void;
}

export function createInteractionDesk(opts: {
  /** How long a click waits for its answer (ms). */
  timeoutMs: number;
  /** The app's newest live session, if it is connected. */
  targetFor(botId: string): InteractionTarget | undefined;
}): InteractionDesk {
  const interactions = new Map<string, PendingInteraction>();
  const waiting = new Map<string, Waiting>();

  function settle(id: string, result: ClickResult): void {
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(result);
  }

  function keep(pending: PendingInteraction): void {
    interactions.set(pending.id, pending);
    if (interactions.size > INTERACTION_MEMORY) {
      const oldest = [...interactions.values()].find((entry) => entry.state !== 'waiting');
      if (oldest) interactions.delete(oldest.id);
    }
  }

  async function click(current: DiscordWorld, input: ClickInput): Promise<ClickResult> {
    const message = current.ctx.store.get(input.messageId)!;
    if (message.deleted) {
      throw new EmulatorInputError(`message ${input.messageId} was deleted: its buttons are gone`, 404);
    }
    const buttons = componentButtons(messageData(message).components ?? []);
    if (buttons.length === 0) throw new EmulatorInputError(`message ${input.messageId} has no buttons`);
    if (!buttons.some((button) => button.action === input.action)) {
      throw new EmulatorInputError(
        `message ${input.messageId} has no button ${JSON.stringify(input.action)}; its buttons: ${buttons
          .map((button) => button.action)
          .join(', ')}`,
        404,
      );
    }
    const channel = channelOfMessage(current, message);
    // Discord sends the interaction to the app whose message it is, on its newest connection.
    const target = opts.targetFor(message.author.id);
    if (!channel || !target) return { delivered: false, status: 0 };
    const pending: PendingInteraction = {
      id: current.newId(),
      token: `aW50ZXJhY3Rpb246${token()}`,
      appId: target.bot.id,
      space: spaceOf(channel),
      thread: channel.type === ChannelType.PublicThread ? channel.id : null,
      messageId: message.id,
      state: 'waiting',
    };
    keep(pending);
    const result = new Promise<ClickResult>((resolve) => {
      const timer = setTimeout(() => {
        pending.state = 'expired';
        settle(pending.id, { delivered: false, status: 0 });
      }, opts.timeoutMs);
      waiting.set(pending.id, { pending, resolve, timer });
    });
    await target.deliver(
      current,
      channel,
      'INTERACTION_CREATE',
      buttonInteractionPayload({
        world: current,
        id: pending.id,
        token: pending.token,
        app: target.bot,
        message,
        channel,
        customId: input.action,
        person: input.user ?? defaultPerson(channel),
        at: current.ctx.now(),
      }),
    );
    return result;
  }

  function answer(pending: PendingInteraction, answer: InteractionAnswer): void {
    pending.state = 'answered';
    pending.answer = answer;
    settle(pending.id, {
      delivered: true,
      status: answer.status,
      ...(answer.content === undefined ? {} : { reply: answer.content }),
    });
  }

  return {
    click,
    interaction: (id) => interactions.get(id),
    answer,
    settleAll() {
      for (const id of [...waiting.keys()]) settle(id, { delivered: false, status: 0 });
    },
  };
}

/** The person pressing when the click names none: a DM's other end, else Discord's example user. */
function defaultPerson(channel: ResolvedChannel): string {
  return channel.type === ChannelType.DM ? channel.recipientId : DEFAULT_PERSON_ID;
}
