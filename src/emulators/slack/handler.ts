/**
 * The Slack Web API subset turnlog uses, as a PlatformHandler for the
 * emulator core: `POST /api/<method>` for auth.test, conversations.info,
 * conversations.replies, conversations.history,
 * chat.postMessage, chat.update, chat.delete and reactions.add, plus a
 * person's messages through `/_emulator/inbound`.
 */
import { EmulatorInputError, type PlatformHandler, type PlatformRoute } from '../core/index.js';
import { createSlackAppDelivery, EMULATED_APP_ID } from './app-delivery.js';
import { readSlackArgs } from './args.js';
import type { VisibleButton } from './blocks.js';
import { slackError, slackErrorResponse } from './errors.js';
import { appForToken, channelKind, createTsSource, DEFAULT_PERSON_ID } from './ids.js';
import { appsConnectionsOpen } from './methods/apps-connections-open.js';
import { assistantThreadsSetStatus } from './methods/assistant-threads-set-status.js';
import { authTest } from './methods/auth-test.js';
import { chatDelete } from './methods/chat-delete.js';
import { chatUpdate } from './methods/chat-update.js';
import { conversationsInfo } from './methods/conversations-info.js';
import { conversationsHistory, conversationsReplies } from './methods/conversations-read.js';
import { postMessage } from './methods/post-message.js';
import { reactionsAdd, reactionsRemove } from './methods/reactions.js';
import type { AssistantStatusSupport, SlackEmulatorState, SlackMethod } from './slack-call.js';
import { createSlackSocketMode, type SlackSocketMode, type SlackSocketModeOptions } from './socket-mode.js';
import { joinThread, resolveThreadRoot } from './threads.js';

const METHODS: Record<string, SlackMethod> = {
  'auth.test': authTest,
  'conversations.info': conversationsInfo,
  'conversations.replies': conversationsReplies,
  'conversations.history': conversationsHistory,
  'chat.postMessage': postMessage,
  'chat.update': chatUpdate,
  'chat.delete': chatDelete,
  'reactions.add': reactionsAdd,
  'reactions.remove': reactionsRemove,
  'assistant.threads.setStatus': assistantThreadsSetStatus,
  'apps.connections.open': appsConnectionsOpen,
};

/** `/api/chat.postMessage` → `chat.postMessage`. */
const METHOD_PATH = /^\/api\/([A-Za-z]+(?:\.[A-Za-z]+)+)$/;

export interface SlackHandlerOptions {
  /** Refuse `thread_ts` in a DM and `thread_ts` naming no message (Slack accepts both). Default false. */
  strict?: boolean;
  /** A workspace without assistant statuses answers this error to every setStatus. Default `enabled`. */
  assistantStatus?: AssistantStatusSupport;
  /** Channels archived: posts and edits there answer `is_archived`. */
  archived?: readonly string[];
  /** Channels the app was never added to: posts and edits there answer `not_in_channel`. */
  notMember?: readonly string[];
  /** Block types the workspace refuses with `invalid_blocks` (e.g. `plan` where it is not rolled out). */
  unsupportedBlocks?: readonly string[];
  /** Socket Mode's ack deadline, retries and disconnect grace (socket-mode.ts). */
  socketMode?: SlackSocketModeOptions;
}

/** The Slack handler, with its Socket Mode side for the in-process API (`startSlackEmulator`'s `socketMode`). */
export interface SlackHandler extends PlatformHandler {
  readonly socketMode: SlackSocketMode;
}

export function createSlackHandler(opts: SlackHandlerOptions = {}): SlackHandler {
  const socketMode = createSlackSocketMode(opts.socketMode);
  const slack: SlackEmulatorState = {
    strict: opts.strict ?? false,
    ts: createTsSource(),
    threadPeople: new Map(),
    reactions: new Map(),
    assistantStatus: opts.assistantStatus ?? 'enabled',
    archived: new Set(opts.archived ?? []),
    notMember: new Set(opts.notMember ?? []),
    unsupportedBlocks: new Set(opts.unsupportedBlocks ?? []),
    statuses: new Map(),
    socketMode,
  };
  const delivery = createSlackAppDelivery(socketMode);

  return {
    socketMode,
    match(req, ctx): PlatformRoute | null {
      const methodName = METHOD_PATH.exec(req.path)?.[1];
      const method = methodName === undefined ? undefined : METHODS[methodName];
      if (!method) return null;
      const args = readSlackArgs(req);
      const { run, ...notes } = method({ args, ctx, slack });
      const { token } = args;
      return {
        ...notes,
        // `app` limits count per token (every token is its own app) and, for the methods that share the
        // `other` op, per method too: Slack limits "per API method per workspace per app".
        app: notes.op === 'other' ? `${token ?? 'anonymous'} ${methodName}` : (token ?? 'anonymous'),
        handle: () => {
          const reply = token === null ? slackError('not_authed') : run(appForToken(token));
          // The core records the reply's details instead of the route's: keep both (an error keeps the emoji name …).
          if (notes.details === undefined || reply.record?.details === undefined) return reply;
          return {
            ...reply,
            record: { ...reply.record, details: { ...notes.details, ...reply.record.details } },
          };
        },
      };
    },

    inbound(input, ctx) {
      if (channelKind(input.space) === null) {
        throw new EmulatorInputError(
          `space ${JSON.stringify(input.space)} is not a Slack channel id (C…, G… or D…, upper case)`,
        );
      }
      let root: string | null = null;
      if (input.threadId !== undefined) {
        root = resolveThreadRoot(ctx.store, input.space, input.threadId);
        if (root === null) {
          throw new EmulatorInputError(
            `threadId ${JSON.stringify(input.threadId)} is not the ts of a message in ${input.space}`,
            404,
          );
        }
      }
      const person = input.user ?? DEFAULT_PERSON_ID;
      const ts = slack.ts.next(ctx.now());
      ctx.store.create({
        id: ts,
        space: input.space,
        thread: root,
        text: input.text,
        author: { kind: 'user', id: person },
        data: {},
      });
      joinThread(slack, root ?? ts, person);
      return { messageId: ts, threadId: root ?? ts };
    },

    errorResponse: (status, retryAfterS, kind, _rateLimit, call) =>
      slackErrorResponse(status, retryAfterS, kind, call),

    // The text a person reads is already the blocks' text (content.ts); the buttons they can press come along.
    messageContent(message) {
      const buttons = (message.data as { buttons?: VisibleButton[] } | undefined)?.buttons;
      return buttons !== undefined && buttons.length > 0 ? { buttons } : undefined;
    },

    reset() {
      // `ts` keeps counting (see TsSource); the rest is forgotten with the messages.
      slack.threadPeople.clear();
      slack.reactions.clear();
      slack.statuses.clear();
      delivery.reset();
      socketMode.reset();
    },

    // Two-way (docs/emulators.md "Slack app"): events and interactions go to the registered app, signed.
    attach(server, ctx) {
      delivery.setOrigin(ctx.url);
      socketMode.attach(server, ctx.url, EMULATED_APP_ID);
    },
    detach: () => socketMode.detach(),
    registerApp(input) {
      delivery.registerApp(input);
    },
    deliverInbound: (message, ctx) => delivery.deliverMessage(message, ctx.now()),
    click: (input, ctx) => delivery.click(input, ctx.store, ctx.now()),
    endpoints: {
      'POST response': (req) => delivery.respond(req.query.get('id'), req.body),
      'GET deliveries': () => ({ status: 200, body: { deliveries: delivery.deliveries() } }),
      'GET socket': () => ({ status: 200, body: socketMode.view() }),
      'POST socket/disconnect': (req) => {
        const reason = (req.body as { reason?: unknown } | undefined)?.reason;
        if (reason !== undefined && (typeof reason !== 'string' || reason === '')) {
          throw new EmulatorInputError('bad socket/disconnect body: reason must be a non-empty string');
        }
        return { status: 200, body: { disconnected: socketMode.disconnect(reason) } };
      },
    },
  };
}
