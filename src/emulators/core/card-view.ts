/**
 * What a person sees of a message beyond its text field: a card's title and
 * text, its buttons as `[{action, label}]`, the fallback text. Each platform
 * module reads its own payload (cardsV2, Block Kit, components) into a
 * {@link MessageContentView}; the core puts it on `GET /_emulator/messages`
 * the same way for every platform.
 */
import type { EmulatedButton, EmulatedMessage } from '../types.js';
import type { StoredMessage } from './stored-message.js';

/** A platform's reading of a message's rich content. */
export interface MessageContentView {
  /** The card's title (header), if it has one. */
  title?: string;
  /** The card's or blocks' text lines, as shown. */
  lines?: string[];
  buttons?: EmulatedButton[];
  fallbackText?: string;
}

/** The inspection view of a stored message, with its rich content when the platform read any. */
export function messageView(message: StoredMessage, content?: MessageContentView): EmulatedMessage {
  const view: EmulatedMessage = {
    id: message.id,
    thread: message.thread,
    text: message.text,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
    edits: message.edits,
    deleted: message.deleted,
    reactions: (message.reactions ?? []).map((r) => ({ emoji: r.emoji, user: r.user })),
  };
  if (content === undefined) return view;
  const lines = content.lines ?? [];
  if (content.title !== undefined || lines.length > 0) {
    view.card = { title: content.title ?? null, text: lines.join('\n') };
  }
  if (content.buttons !== undefined && content.buttons.length > 0) view.buttons = content.buttons;
  if (content.fallbackText !== undefined && content.fallbackText !== '')
    view.fallbackText = content.fallbackText;
  return view;
}

/**
 * The message as one plain text, the way a person reads it top to bottom:
 * the text, the card's title and text, then the buttons as `[Label]`.
 */
export function messageAsText(message: EmulatedMessage): string {
  const parts = [message.text];
  if (message.card?.title) parts.push(message.card.title);
  if (message.card?.text) parts.push(message.card.text);
  if (message.buttons?.length) parts.push(message.buttons.map((b) => `[${b.label}]`).join(' '));
  return parts.filter((part) => part !== '').join('\n');
}
