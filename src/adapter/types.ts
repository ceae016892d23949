/**
 * The ChannelAdapter API (docs/library.md, "The channel adapter"): the interface a Paraclaw-style
 * agent host uses for a chat channel. turnlog implements it over its runtime,
 * so the host's people, buttons and replies go through turnlog (redacted,
 * rate-budgeted, threaded) while the activity log still comes from run events.
 */

/** How the host configures one conversation (from its own database). */
export interface ConversationConfig {
  /** turnlog's space id, platform-prefixed: `slack:C0123ABCD`, `gchat:spaces/AAAA`, `discord:123…`. */
  platformId: string;
  agentGroupId: string;
  /** A regex a message must match to be forwarded when `requiresTrigger` (e.g. `^@agent\\b`). */
  triggerPattern?: string;
  requiresTrigger: boolean;
  sessionMode: 'shared' | 'per-thread';
}

/** What the adapter hands the host: a person's message, or their answer to a card. */
export interface InboundMessage {
  /** The action id (also usable as `rootRef` of the turn that answers it). */
  id: string;
  kind: 'chat';
  content: InboundContent;
  /** ISO 8601. */
  timestamp: string;
}

export interface InboundContent {
  sender: string;
  senderId: string;
  text: string;
  attachments: unknown[];
  isFromMe: boolean;
  /** The platform's id of the person's message (for `message` actions). */
  messageId?: string;
  /** A `question` card's answer. */
  questionId?: string;
  selectedOption?: string;
  value?: string;
  /** A policy card's decision. */
  requestId?: string;
  decision?: 'approved' | 'rejected';
  /** Stop pressed on a live log. */
  stop?: boolean;
  /** The turn a card or log belongs to. */
  turnId?: string;
}

export interface ChannelSetup {
  conversations: ConversationConfig[];
  onInbound(platformId: string, threadId: string | null, message: InboundMessage): void;
  onMetadata(platformId: string, name?: string, isGroup?: boolean): void;
}

/**
 * What the host sends. `kind: 'chat'` with `content`:
 * - `{text}` or `{markdown}` (optionally `{id}`, the host's id for the message): a post;
 * - `{operation: 'edit', messageId, text}`; `{operation: 'reaction', messageId, emoji}`;
 * - `{card: {title, children}, fallbackText?}`: a card with buttons;
 * - `{operation: 'ask_question', questionId, title?, question, options, turnId?}`.
 */
export interface OutboundMessage {
  kind: 'chat' | 'chat-sdk';
  content: unknown;
}

export interface ChannelAdapter {
  readonly name: string;
  readonly channelType: string;
  setup(config: ChannelSetup): Promise<void>;
  teardown(): Promise<void>;
  isConnected(): boolean;
  deliver(platformId: string, threadId: string | null, message: OutboundMessage): Promise<void>;
  setTyping?(platformId: string, threadId: string | null): Promise<void>;
  updateConversations?(conversations: ConversationConfig[]): void;
}
