/**
 * The channels the emulator knows: guild text channels (declared, or in
 * non-strict mode any snowflake id on first use), DMs (declared or opened
 * with `POST /users/@me/channels`) and threads (kept in the message store,
 * id = the starter message's id).
 */
import { EmulatorInputError, type MessageStore, type StoredThread } from '../core/index.js';
import { threadData } from './data.js';
import { isSnowflake } from './snowflake.js';

/** Discord's channel types the emulator serves. */
export const ChannelType = { GuildText: 0, DM: 1, PublicThread: 11 } as const;

/** A channel to declare up front (needed in strict mode; the way to have a DM without the create-DM route). */
export interface DiscordChannelSeed {
  id: string;
  type: typeof ChannelType.GuildText | typeof ChannelType.DM;
  /** Guild channel name; default `channel-<id>`. */
  name?: string;
  /** DM: the person at the other end; default a fixed person id. */
  recipientId?: string;
}

export type ResolvedChannel =
  | { type: typeof ChannelType.GuildText; id: string; name: string }
  | { type: typeof ChannelType.DM; id: string; recipientId: string }
  | { type: typeof ChannelType.PublicThread; id: string; parentId: string; thread: StoredThread };

/** The person behind inbound messages and DMs when none is named (the example user id of Discord's docs). */
export const DEFAULT_PERSON_ID = '80351110224678912';

export interface ChannelRegistry {
  /** The channel with that id; null when unknown (strict mode) or not a snowflake. Never changes state. */
  resolve(id: string, store: MessageStore): ResolvedChannel | null;
  /** Declares a channel. Throws EmulatorInputError on a bad id or a clash with a channel of another type. */
  declare(seed: DiscordChannelSeed): void;
  /** The DM channel with that person, opening it with `newId()` when there is none. */
  openDm(recipientId: string, newId: () => string): ResolvedChannel;
}

/** The conversation a channel belongs to: a thread's parent, else the channel itself. */
export const spaceOf = (channel: ResolvedChannel) =>
  channel.type === ChannelType.PublicThread ? channel.parentId : channel.id;

export function createChannelRegistry(strict: boolean): ChannelRegistry {
  const declared = new Map<string, ResolvedChannel>();
  const dmByRecipient = new Map<string, ResolvedChannel>();

  const registry: ChannelRegistry = {
    resolve(id, store) {
      if (!isSnowflake(id)) return null;
      const thread = store.getThread(id);
      if (thread) return { type: ChannelType.PublicThread, id, parentId: thread.space, thread };
      const known = declared.get(id);
      if (known) return known;
      return strict ? null : { type: ChannelType.GuildText, id, name: `channel-${id}` };
    },
    declare(seed) {
      if (!isSnowflake(seed.id)) {
        throw new EmulatorInputError(
          `channel id ${JSON.stringify(seed.id)} is not a snowflake (1-20 digits)`,
        );
      }
      const existing = declared.get(seed.id);
      if (existing && existing.type !== seed.type) {
        throw new EmulatorInputError(`channel ${seed.id} is already declared with type ${existing.type}`);
      }
      if (seed.type === ChannelType.DM) {
        const recipientId = seed.recipientId ?? DEFAULT_PERSON_ID;
        const dm: ResolvedChannel = { type: ChannelType.DM, id: seed.id, recipientId };
        declared.set(seed.id, dm);
        dmByRecipient.set(recipientId, dm);
      } else {
        declared.set(seed.id, {
          type: ChannelType.GuildText,
          id: seed.id,
          name: seed.name ?? `channel-${seed.id}`,
        });
      }
    },
    openDm(recipientId, newId) {
      const existing = dmByRecipient.get(recipientId);
      if (existing) return existing;
      const id = newId();
      registry.declare({ id, type: ChannelType.DM, recipientId });
      return declared.get(id)!;
    },
  };
  return registry;
}

/** Is the thread archived (Discord refuses edits, deletes and reactions in it: 50083)? */
export const isArchived = (channel: ResolvedChannel) =>
  channel.type === ChannelType.PublicThread && threadData(channel.thread).archived;
