/**
 * `createChannelAdapter(platform, {backend})`: turnlog as a Paraclaw-style
 * host's chat channel (docs/library.md, "The channel adapter").
 *
 * - Inbound: the adapter reads turnlog's action outbox (at least once, in
 *   order per space) and hands the host each person's message, answer,
 *   decision and Stop through `onInbound`, after the conversation's trigger
 *   check; `onMetadata` names a space the first time it is heard from.
 * - Outbound: `deliver` posts, edits, reacts, posts cards and asks questions
 *   through turnlog's runtime, so every write is redacted, mention-safe and
 *   budgeted like the activity log's own writes.
 */
import type { Action } from '../actions/types.js';
import type { FrameAction, FrameCard } from '../surfaces/frame.js';
import type { PostedMessage } from '../surfaces/surface.js';
import type {
  ChannelAdapter,
  ChannelSetup,
  ConversationConfig,
  InboundContent,
  InboundMessage,
} from './types.js';

/** What the adapter needs from turnlog: the outbox and budgeted writes. The runtime provides it (`runtime.channel`). */
export interface ChannelBackend {
  /** Actions from the outbox after `after` (from the oldest kept without), waiting for more until `signal` aborts. */
  actions(opts: { after?: string; signal: AbortSignal }): AsyncIterable<Action>;
  /** A must-land post (redacted, budgeted): top level, or in `threadId`. */
  post(req: { space: string; threadId?: string; markdown: string }): Promise<PostedMessage>;
  edit(req: { space: string; messageId: string; threadId?: string; markdown: string }): Promise<void>;
  react(req: { space: string; messageId: string; emoji: string; threadId?: string }): Promise<void>;
  /**
   * Posts a card whose buttons come back as `answer` actions with
   * `questionId` = `card.id` and `value` = the pressed option's value.
   */
  postCard(req: {
    space: string;
    threadId?: string;
    card: FrameCard;
    options: { label: string; selectedLabel: string; value: string }[];
    turnId?: string;
  }): Promise<PostedMessage>;
  typing?(req: { space: string; threadId?: string }): Promise<void>;
}

export interface ChannelAdapterOptions {
  /** Where the adapter reads and writes: a runtime (`createRuntime`, or `turnlog serve`'s `serve.runtime`), or a backend of your own. */
  runtime?: { readonly channel: ChannelBackend };
  backend?: ChannelBackend;
  /** Resume the outbox after this cursor (the host keeps the last one it handled). */
  after?: string;
  /** Called with each action's cursor once the host's `onInbound` returned for it. */
  onCursor?: (cursor: string) => void;
  /** Where a failing `onInbound` or outbox read is reported. Default: console.error. */
  onError?: (error: unknown) => void;
}

/** Thrown by `deliver` for content it cannot send, naming what is wrong. */
export class ChannelDeliveryError extends Error {
  override readonly name = 'ChannelDeliveryError';
}

/** How many of the host's own message ids are kept for later edits and reactions. */
const HOST_IDS_KEPT = 1000;

type QuestionOption = string | { label: string; selectedLabel?: string; value?: string };

export function createChannelAdapter(platform: string, opts: ChannelAdapterOptions): ChannelAdapter {
  const given = opts.backend ?? opts.runtime?.channel;
  if (!given) throw new TypeError('createChannelAdapter: pass {runtime} (a turnlog runtime) or {backend}');
  const backend: ChannelBackend = given;
  let setupDone: ChannelSetup | undefined;
  let conversations = new Map<string, ConversationConfig>();
  let abort: AbortController | undefined;
  let reading: Promise<void> | undefined;
  let cursor = opts.after;
  const known = new Set<string>();
  /** The host's own ids for messages it posted → the platform's. */
  const hostIds = new Map<string, PostedMessage>();
  let cardCount = 0;
  const remember = (id: unknown, posted: PostedMessage) => {
    if (typeof id !== 'string') return;
    hostIds.set(id, posted);
    // Edits and reactions follow their post closely: the oldest ids are forgotten first.
    if (hostIds.size > HOST_IDS_KEPT) hostIds.delete(hostIds.keys().next().value as string);
  };
  const report = opts.onError ?? ((error: unknown) => console.error('turnlog channel adapter:', error));

  const ownSpace = (platformId: string): string => {
    if (!platformId.startsWith(`${platform}:`)) {
      throw new ChannelDeliveryError(
        `platformId ${JSON.stringify(platformId)} is not a ${platform} space (expected "${platform}:…")`,
      );
    }
    return platformId;
  };

  /** A message the host should see: a configured conversation (after its trigger), or any DM. */
  function forwarded(action: Extract<Action, { type: 'message' }>): boolean {
    const conversation = conversations.get(action.space);
    if (!conversation) return action.dm || conversations.size === 0;
    if (!conversation.requiresTrigger || conversation.triggerPattern === undefined) return true;
    return new RegExp(conversation.triggerPattern).test(action.text);
  }

  function inboundOf(action: Action): InboundMessage | undefined {
    const base = {
      sender: action.user.name ?? action.user.id,
      senderId: action.user.id,
      attachments: [],
      isFromMe: false,
    };
    let content: InboundContent;
    switch (action.type) {
      case 'message':
        if (!forwarded(action)) return undefined;
        content = { ...base, text: action.text, messageId: action.messageId };
        break;
      case 'answer':
        content = {
          ...base,
          text: action.label,
          questionId: action.questionId,
          selectedOption: action.label,
          value: action.value,
          ...(action.turnId === '' ? {} : { turnId: action.turnId }),
        };
        break;
      case 'decision':
        content = {
          ...base,
          text: action.decision,
          requestId: action.requestId,
          decision: action.decision,
          turnId: action.turnId,
        };
        break;
      case 'stop':
        content = { ...base, text: 'stop', stop: true, turnId: action.turnId };
        break;
    }
    return { id: action.id, kind: 'chat', content, timestamp: new Date(action.at).toISOString() };
  }

  async function read(setup: ChannelSetup, signal: AbortSignal): Promise<void> {
    for await (const action of backend.actions({ ...(cursor ? { after: cursor } : {}), signal })) {
      if (!action.space.startsWith(`${platform}:`)) {
        cursor = action.cursor;
        continue;
      }
      if (!known.has(action.space)) {
        known.add(action.space);
        setup.onMetadata(action.space, undefined, action.type === 'message' ? !action.dm : undefined);
      }
      const message = inboundOf(action);
      const threadId = action.type === 'message' ? (action.threadId ?? null) : null;
      if (message) setup.onInbound(action.space, threadId, message);
      cursor = action.cursor;
      opts.onCursor?.(action.cursor);
    }
  }

  function textOf(content: Record<string, unknown>, what: string): string {
    const text = content.markdown ?? content.text;
    if (typeof text !== 'string' || text === '') {
      throw new ChannelDeliveryError(`${what}: content needs a non-empty "text" or "markdown"`);
    }
    return text;
  }

  function messageIdOf(content: Record<string, unknown>, what: string): PostedMessage {
    const id = content.messageId;
    if (typeof id !== 'string' || id === '') {
      throw new ChannelDeliveryError(`${what}: content needs "messageId" (the host's id or the platform's)`);
    }
    return hostIds.get(id) ?? { messageId: id };
  }

  function questionCard(content: Record<string, unknown>): {
    card: FrameCard;
    options: { label: string; selectedLabel: string; value: string }[];
  } {
    const questionId = content.questionId;
    const question = content.question;
    const options = content.options;
    if (typeof questionId !== 'string' || questionId === '')
      throw new ChannelDeliveryError('ask_question: "questionId" must be a non-empty string');
    if (typeof question !== 'string' || question === '')
      throw new ChannelDeliveryError('ask_question: "question" must be a non-empty string');
    if (!Array.isArray(options) || options.length === 0)
      throw new ChannelDeliveryError('ask_question: "options" must be a non-empty array');
    const normalised = (options as QuestionOption[]).map((option, index) => {
      if (typeof option === 'string') return { label: option, selectedLabel: option, value: option };
      if (typeof option?.label !== 'string' || option.label === '')
        throw new ChannelDeliveryError(`ask_question: options[${index}] needs a "label"`);
      return {
        label: option.label,
        selectedLabel: option.selectedLabel ?? option.label,
        value: option.value ?? option.label,
      };
    });
    const actions: FrameAction[] = normalised.map((option, index) => ({
      id: `answer:${index}`,
      label: option.label,
    }));
    const title = typeof content.title === 'string' && content.title !== '' ? content.title : question;
    return {
      card: { kind: 'question', id: questionId, title, body: question, actions },
      options: normalised,
    };
  }

  /** A host card (`{type: 'card', title, children: [text…, actions…]}`) as a question card: its buttons answer it. */
  function hostCard(content: Record<string, unknown>): ReturnType<typeof questionCard> {
    const card = content.card as { title?: unknown; id?: unknown; children?: unknown } | undefined;
    if (typeof card?.title !== 'string' || card.title === '')
      throw new ChannelDeliveryError('card: "card.title" must be a non-empty string');
    const children = Array.isArray(card.children) ? (card.children as Record<string, unknown>[]) : [];
    const text = children
      .filter((child) => child.type === 'text' && typeof child.content === 'string')
      .map((child) => child.content as string)
      .join('\n');
    const buttons = children
      .filter((child) => child.type === 'actions' && Array.isArray(child.children))
      .flatMap((child) => child.children as Record<string, unknown>[])
      .filter((button) => button.type === 'button');
    if (buttons.length === 0)
      throw new ChannelDeliveryError('card: needs at least one button in an "actions" child');
    const id = typeof card.id === 'string' && card.id !== '' ? card.id : `card-${++cardCount}`;
    return questionCard({
      questionId: id,
      title: card.title,
      question: text === '' ? card.title : text,
      options: buttons.map((button) => ({
        label: String(button.label ?? button.id),
        value: String(button.id ?? button.label),
      })),
    });
  }

  return {
    name: `turnlog-${platform}`,
    channelType: platform,

    async setup(config) {
      if (setupDone) throw new Error('the channel adapter is already set up (teardown first)');
      setupDone = config;
      conversations = new Map(config.conversations.map((c) => [c.platformId, c]));
      abort = new AbortController();
      const signal = abort.signal;
      reading = read(config, signal).catch((error: unknown) => {
        if (!signal.aborted) report(error);
      });
    },

    async teardown() {
      abort?.abort();
      await reading;
      setupDone = undefined;
      abort = undefined;
      reading = undefined;
    },

    isConnected: () => setupDone !== undefined && abort?.signal.aborted === false,

    updateConversations(next) {
      conversations = new Map(next.map((c) => [c.platformId, c]));
    },

    async deliver(platformId, threadId, message) {
      const space = ownSpace(platformId);
      const content = message.content;
      if (typeof content !== 'object' || content === null)
        throw new ChannelDeliveryError('deliver: content must be an object');
      const fields = content as Record<string, unknown>;
      const thread = threadId === null ? {} : { threadId };
      if ('action' in fields)
        throw new ChannelDeliveryError(
          `deliver: system action ${JSON.stringify(fields.action)} is the host's to handle, not the channel's`,
        );
      switch (fields.operation) {
        case 'edit': {
          const target = messageIdOf(fields, 'edit');
          await backend.edit({
            space,
            messageId: target.messageId,
            ...(target.threadId !== undefined ? { threadId: target.threadId } : thread),
            markdown: textOf(fields, 'edit'),
          });
          return;
        }
        case 'reaction': {
          const target = messageIdOf(fields, 'reaction');
          if (typeof fields.emoji !== 'string' || fields.emoji === '')
            throw new ChannelDeliveryError('reaction: content needs "emoji"');
          await backend.react({
            space,
            messageId: target.messageId,
            emoji: fields.emoji,
            ...(target.threadId !== undefined ? { threadId: target.threadId } : thread),
          });
          return;
        }
        case 'ask_question': {
          const { card, options } = questionCard(fields);
          await backend.postCard({
            space,
            ...thread,
            card,
            options,
            ...(typeof fields.turnId === 'string' ? { turnId: fields.turnId } : {}),
          });
          return;
        }
        case undefined:
        case 'post':
          break;
        default:
          throw new ChannelDeliveryError(
            `deliver: unknown operation ${JSON.stringify(fields.operation)} (post, edit, reaction, ask_question, or a card)`,
          );
      }
      if ('card' in fields) {
        const { card, options } = hostCard(fields);
        remember(fields.id, await backend.postCard({ space, ...thread, card, options }));
        return;
      }
      remember(fields.id, await backend.post({ space, ...thread, markdown: textOf(fields, 'post') }));
    },

    async setTyping(platformId, threadId) {
      const space = ownSpace(platformId);
      await backend.typing?.({ space, ...(threadId === null ? {} : { threadId }) });
    },
  };
}
