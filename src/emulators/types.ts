/** The emulator inspection API shapes (docs/emulators.md), shared by the memory surface. */

/** The platforms the emulators stand in for (the built-ins; the core knows none by name). */
export const EMULATED_PLATFORMS = ['gchat', 'slack', 'discord'] as const;
export type Platform = (typeof EMULATED_PLATFORMS)[number];

export type CallOp = 'create' | 'update' | 'delete' | 'thread' | 'reaction' | 'inbound' | 'other';

export interface RecordedCall {
  seq: number;
  at: number;
  method: string;
  path: string;
  op: CallOp;
  status: number;
  /** The platform's own space id (`spaces/A`, a Slack channel, a Discord channel). */
  space: string | null;
  thread: string | null;
  messageId: string | null;
  text: string | null;
  /** Would this call push a notification to a person in that conversation? */
  notifies: boolean;
  /** Broad mentions that fired (`@everyone`, `<!channel>`, `<users/all>` …); empty when none. */
  mentions: string[];
  /** Extra platform details tests assert on (messageReplyOption, updateMask, flags …). */
  details?: Record<string, unknown>;
}

export interface FaultRule {
  op?: CallOp;
  method?: string;
  /** A substring or `/regex/` of the request path. */
  path?: string;
  /** The status answered (400–599); absent for a rule that only holds or delays the call. */
  status?: number;
  /** How many calls to fail; default every matching call. */
  times?: number;
  retryAfterS?: number;
  /** The write is applied, then `status` is answered: a lost response (the caller cannot tell it landed). */
  applied?: boolean;
  /** The call waits this long (wall clock) before it is handled: a slow write that lands late. */
  delayMs?: number;
  /** The call waits until `POST /_emulator/release` before it is handled (a gate a test opens). */
  hold?: boolean;
  /** Only this share of the matching calls is hit (0 < rate ≤ 1), drawn from `seed` (default 1): repeatable. */
  rate?: number;
  seed?: number;
}

export type LimitScope = 'app' | 'space' | 'global';

export interface LimitRule {
  op: CallOp | '*';
  scope: LimitScope;
  limit: number;
  windowS: number;
}

/** A button a person can press: `action` is what a click sends back to the app, `label` what it shows. */
export interface EmulatedButton {
  /** What a press sends; `''` for a link button, which opens `url` instead. */
  action: string;
  label: string;
  /** A link button's target (Discord's style Link): it opens a page and sends no action. */
  url?: string;
}

export interface EmulatedMessage {
  id: string;
  thread: string | null;
  /** The message's own text field (empty for a card-only message). */
  text: string;
  createdAt: number;
  updatedAt: number | null;
  edits: number;
  deleted: boolean;
  /** A card's (or blocks') content as a person sees it; absent on a plain text message. */
  card?: { title: string | null; text: string };
  /** The buttons a person can press (on cards, blocks or components); absent when there are none. */
  buttons?: EmulatedButton[];
  /** What the platform shows where the card cannot be (notifications, clients without cards). */
  fallbackText?: string;
  /** Reactions on the message (`emoji` as the unicode character, also on Slack); empty when there is none. */
  reactions: EmulatedReaction[];
}

/** A reaction as a person sees it: the emoji (unicode) and the platform user id of who added it. */
export interface EmulatedReaction {
  emoji: string;
  user: string;
}
