/**
 * The Chat app the emulator delivers events to (`POST /_emulator/app`), the
 * way Google Chat calls an HTTP Chat app
 * (https://developers.google.com/workspace/chat/receive-respond-interactions):
 * a POST of the event as JSON with a Bearer JWT (app-jwt.ts), answered
 * synchronously by the app.
 * - a person's message (`POST /_emulator/inbound`) → a MESSAGE event;
 * - a button press (`POST /_emulator/click`) → a CARD_CLICKED event for a
 *   button found on the message's cardsV2, with its `function` and
 *   `parameters` (`common.invokedFunction`/`common.parameters`, and the older
 *   `action.actionMethodName`/`action.parameters`). The app's private answer
 *   (`privateMessageViewer`) is reported as the click's `reply`; it is not
 *   stored in the space (only the clicker would see it).
 */

import {
  EmulatorInputError,
  type HandlerContext,
  type HttpAnswer,
  type StoredMessage,
} from '../core/index.js';
import type { AppRegistration, ClickInput, ClickResult } from '../core/platform-handler.js';
import { type ChatSigningKey, createChatSigningKey, signChatToken } from './app-jwt.js';
import { actionOfButton } from './button-action.js';
import { buttonAction, isRecord, records } from './card-view.js';
import type { GchatWorld } from './gchat-world.js';
import { userName } from './inbound.js';
import { messageData, messageResource } from './resources.js';

/** Chat waits this long for an app's answer. */
const APP_TIMEOUT_MS = 30_000;

type Json = Record<string, unknown>;

interface FoundButton {
  /** As `GET /_emulator/messages` lists it: `function?key=value&…`. */
  listed: string;
  label: string;
  invokedFunction: string;
  parameters: { key: string; value: string }[];
}

export interface GchatAppOptions {
  world: GchatWorld;
  /** Epoch ms the JWTs are stamped with: the app checks them against its own clock. Default `Date.now`. */
  tokenNow?: () => number;
}

export interface GchatApp {
  register(input: AppRegistration): void;
  deliverInbound(message: StoredMessage, ctx: HandlerContext): Promise<void>;
  click(input: ClickInput, ctx: HandlerContext): Promise<ClickResult>;
  /** `GET /_emulator/jwks`. */
  jwks(): HttpAnswer;
  reset(): void;
}

function buttonsOf(message: StoredMessage): FoundButton[] {
  const found: FoundButton[] = [];
  const take = (button: Json) => {
    const onClick = isRecord(button.onClick) ? button.onClick : {};
    const action = isRecord(onClick.action) ? onClick.action : undefined;
    if (!action) return;
    found.push({
      listed: buttonAction(button),
      label: typeof button.text === 'string' ? button.text : '',
      invokedFunction: typeof action.function === 'string' ? action.function : '',
      parameters: records(action.parameters).map((p) => ({
        key: String(p.key ?? ''),
        value: String(p.value ?? ''),
      })),
    });
  };
  for (const card of records(messageData(message).cardsV2)) {
    const body = isRecord(card.card) ? card.card : {};
    for (const section of records(body.sections)) {
      for (const widget of records(section.widgets)) {
        if (isRecord(widget.buttonList))
          for (const button of records(widget.buttonList.buttons)) take(button);
        if (isRecord(widget.decoratedText) && isRecord(widget.decoratedText.button))
          take(widget.decoratedText.button);
      }
    }
  }
  return found;
}

const recordOf = (parameters: FoundButton['parameters']) =>
  Object.fromEntries(parameters.map(({ key, value }) => [key, value]));

/**
 * The button `action` names: by its listed action, its turnlog action id
 * (`approve`, `answer:0`, `stop`), a parameter value, or its label — the
 * first of these that names exactly one button.
 */
function pickButton(message: StoredMessage, action: string): FoundButton {
  const buttons = buttonsOf(message);
  if (buttons.length === 0) throw new EmulatorInputError(`message ${message.id} has no buttons to click`);
  const tiers: ((b: FoundButton) => boolean)[] = [
    (b) => b.listed === action,
    (b) => actionOfButton(b.invokedFunction, recordOf(b.parameters)) === action,
    (b) => b.parameters.some((p) => p.value === action),
    (b) => b.label.toLowerCase() === action.toLowerCase(),
  ];
  for (const matches of tiers) {
    const hits = buttons.filter(matches);
    if (hits.length === 1) return hits[0] as FoundButton;
    if (hits.length > 1) {
      throw new EmulatorInputError(
        `action ${JSON.stringify(action)} names ${hits.length} buttons on ${message.id}: ${hits.map((b) => b.listed).join(', ')}`,
      );
    }
  }
  throw new EmulatorInputError(
    `no button ${JSON.stringify(action)} on ${message.id}; its buttons: ${buttons.map((b) => `${b.label} (${b.listed})`).join(', ')}`,
  );
}

const person = (id: string | undefined) => {
  const name = userName(id);
  return { name, displayName: name.slice('users/'.length), type: 'HUMAN' };
};

export function createGchatApp(options: GchatAppOptions): GchatApp {
  const tokenNow = options.tokenNow ?? Date.now;
  let key: ChatSigningKey | undefined;
  let registration: { url: string; audience: string } | undefined;
  // Made on first use: RSA key generation costs tens of ms, and most emulators never deliver.
  const signingKey = () => {
    key ??= createChatSigningKey();
    return key;
  };

  /** POSTs an event the way Chat does; the app's status and JSON answer. */
  async function deliver(event: Json): Promise<{ status: number; body: unknown }> {
    if (registration === undefined) throw new Error('no app registered');
    const token = signChatToken(signingKey(), { audience: registration.audience, nowMs: tokenNow() });
    const response = await fetch(registration.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'user-agent': 'Google-Dynamite',
      },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(APP_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  }

  const eventBase = (message: StoredMessage, user: Json, ctx: HandlerContext) => {
    const space = options.world.space(message.space, ctx.now());
    const resource = messageResource(message, space);
    return {
      eventTime: new Date(ctx.now()).toISOString(),
      space: resource.space,
      message: resource,
      user,
    };
  };

  return {
    register(input) {
      if (input.url === undefined) {
        throw new EmulatorInputError(
          'a Google Chat app needs `url`: its HTTP endpoint (Google Chat has no Socket Mode)',
        );
      }
      if (input.secret === undefined) {
        throw new EmulatorInputError(
          "a Google Chat app needs `secret`: the JWT audience (the Chat app's project number, platforms.gchat.events.audience)",
        );
      }
      registration = { url: input.url, audience: input.secret };
    },
    async deliverInbound(message, ctx) {
      if (registration === undefined) return;
      const sender = person(message.author.id);
      try {
        await deliver({ type: 'MESSAGE', ...eventBase(message, sender, ctx) });
      } catch {
        // Like Chat, a person's message stays posted when the app is down; the app just never hears of it.
      }
    },
    async click(input, ctx) {
      const message = ctx.store.get(input.messageId) as StoredMessage;
      if (message.deleted) throw new EmulatorInputError(`message ${message.id} was deleted`, 404);
      const button = pickButton(message, input.action);
      if (registration === undefined) return { delivered: false, status: 0 };
      const event = {
        type: 'CARD_CLICKED',
        ...eventBase(message, person(input.user), ctx),
        action: { actionMethodName: button.invokedFunction, parameters: button.parameters },
        common: { invokedFunction: button.invokedFunction, parameters: recordOf(button.parameters) },
      };
      let answer: { status: number; body: unknown };
      try {
        answer = await deliver(event);
      } catch {
        return { delivered: false, status: 0 };
      }
      const text =
        isRecord(answer.body) && typeof answer.body.text === 'string' ? answer.body.text : undefined;
      return {
        delivered: answer.status >= 200 && answer.status < 300,
        status: answer.status,
        ...(text === undefined ? {} : { reply: text }),
      };
    },
    jwks: () => ({
      status: 200,
      headers: { 'cache-control': 'public, max-age=3600' },
      body: { keys: [signingKey().jwk] },
    }),
    reset() {
      registration = undefined;
    },
  };
}
