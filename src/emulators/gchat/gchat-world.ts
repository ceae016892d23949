/**
 * What the Google Chat emulator knows beyond the core's message store: which
 * spaces exist and which are DMs, thread keys, and client-assigned message
 * ids. Messages and threads themselves live in the core store.
 *
 * Spaces are created on first use (any call naming them, or an inbound
 * message). A space is a 1:1 DM with the app (`spaceType: DIRECT_MESSAGE`)
 * when its id starts with `dm-` (`spaces/dm-alice`) or it is listed in the
 * `dmSpaces` option; every other space is a threaded named space.
 */
import type { MessageStore, StoredThread } from '../core/index.js';
import { parseSpaceName } from './resource-names.js';

export const DM_SPACE_ID_PREFIX = 'dm-';

export interface GchatSpace {
  /** `spaces/{space}` */
  name: string;
  id: string;
  dm: boolean;
  createdAt: number;
}

/** What a thread carries in the store's `data`. */
export interface GchatThreadData {
  threadKey?: string;
  /** People (`users/…`) who posted in the thread: a reply notifies them. */
  participants: string[];
}

export interface GchatWorld {
  /** The space named `spaces/{id}`, created on first use. */
  space(name: string, now: number): GchatSpace;
  /** The thread with that key in `space`, if a message created it. */
  threadByKey(store: MessageStore, space: string, key: string): StoredThread | undefined;
  rememberThreadKey(space: string, key: string, threadName: string): void;
  /** Makes `spaces/S/messages/client-…` address the message with system name `messageName`. */
  rememberClientId(space: string, clientId: string, messageName: string): void;
  /** The system name of the message created with that client-assigned id in `space`, if any. */
  messageWithClientId(space: string, clientId: string): string | undefined;
  /** The system name a message name stands for (resolving a client-assigned id); the name itself otherwise. */
  resolveMessageName(name: string): string;
  /** Forgets spaces, keys and ids (`POST /_emulator/reset`). */
  reset(): void;
}

export interface GchatWorldOptions {
  /** Spaces (`spaces/X` or `X`) to treat as DMs besides those whose id starts with `dm-`. */
  dmSpaces?: readonly string[];
}

export function createGchatWorld(opts: GchatWorldOptions = {}): GchatWorld {
  const dmIds = new Set((opts.dmSpaces ?? []).map((space) => space.replace(/^spaces\//, '')));
  let spaces = new Map<string, GchatSpace>();
  let threadKeys = new Map<string, string>();
  let clientIds = new Map<string, string>();
  const keyOf = (space: string, key: string) => `${space}\u0000${key}`;

  const isDmId = (id: string) => id.startsWith(DM_SPACE_ID_PREFIX) || dmIds.has(id);

  return {
    space(name, now) {
      const existing = spaces.get(name);
      if (existing) return existing;
      const id = parseSpaceName(name);
      if (id === null) throw new Error(`not a Google Chat space name: ${JSON.stringify(name)}`);
      const created: GchatSpace = { name, id, dm: isDmId(id), createdAt: now };
      spaces.set(name, created);
      return created;
    },
    threadByKey(store, space, key) {
      const name = threadKeys.get(keyOf(space, key));
      return name === undefined ? undefined : store.getThread(name);
    },
    rememberThreadKey(space, key, threadName) {
      threadKeys.set(keyOf(space, key), threadName);
    },
    rememberClientId(space, clientId, messageName) {
      clientIds.set(`${space}/messages/${clientId}`, messageName);
    },
    messageWithClientId: (space, clientId) => clientIds.get(`${space}/messages/${clientId}`),
    resolveMessageName: (name) => clientIds.get(name) ?? name,
    reset() {
      spaces = new Map();
      threadKeys = new Map();
      clientIds = new Map();
    },
  };
}
