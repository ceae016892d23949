/**
 * A Google Chat message's cards as a person sees them: each card's header,
 * its widgets' text (text paragraphs, decorated text with its labels) and its
 * buttons, plus the message's `fallbackText`.
 * Card fields: https://developers.google.com/workspace/chat/api/reference/rest/v1/cards
 */
import type { MessageContentView, StoredMessage } from '../core/index.js';
import type { EmulatedButton } from '../types.js';
import { messageData } from './resources.js';

type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * A button's action as a click would report it: its `action` parameter (the
 * action id turnlog gave it: `approve`, `answer:1`, `stop`), else the invoked
 * `function` with its parameters (`fn?key=value`), or the link it opens.
 */
export function buttonAction(button: Json): string {
  const onClick = isRecord(button.onClick) ? button.onClick : {};
  const action = isRecord(onClick.action) ? onClick.action : undefined;
  if (action) {
    const id = records(action.parameters).find((p) => p.key === 'action');
    if (id !== undefined && typeof id.value === 'string') return id.value;
    const params = records(action.parameters)
      .map((p) => `${encodeURIComponent(String(p.key ?? ''))}=${encodeURIComponent(String(p.value ?? ''))}`)
      .join('&');
    const fn = str(action.function) ?? '';
    return params === '' ? fn : `${fn}?${params}`;
  }
  const link = isRecord(onClick.openLink) ? str(onClick.openLink.url) : undefined;
  return link ?? '';
}

function readWidget(widget: Json, lines: string[], buttons: EmulatedButton[]): void {
  const paragraph = isRecord(widget.textParagraph) ? str(widget.textParagraph.text) : undefined;
  if (paragraph !== undefined) lines.push(paragraph);
  if (isRecord(widget.decoratedText)) {
    const d = widget.decoratedText;
    const text = [str(d.topLabel), str(d.text), str(d.bottomLabel)].filter((t) => t !== undefined);
    if (text.length > 0) lines.push(text.join(': '));
    if (isRecord(d.button)) buttons.push({ action: buttonAction(d.button), label: str(d.button.text) ?? '' });
  }
  if (isRecord(widget.buttonList)) {
    for (const button of records(widget.buttonList.buttons))
      buttons.push({ action: buttonAction(button), label: str(button.text) ?? '' });
  }
}

/** The cards (`cardsV2`) and `fallbackText` of a stored message; undefined for a text-only message. */
export function gchatMessageContent(message: StoredMessage): MessageContentView | undefined {
  const data = messageData(message);
  const cards = records(data.cardsV2).map((c) => (isRecord(c.card) ? c.card : {}));
  if (cards.length === 0 && data.fallbackText === undefined) return undefined;
  let title: string | undefined;
  const lines: string[] = [];
  const buttons: EmulatedButton[] = [];
  for (const card of cards) {
    const header = isRecord(card.header) ? card.header : {};
    const cardTitle = str(header.title);
    if (title === undefined) title = cardTitle;
    else if (cardTitle !== undefined) lines.push(cardTitle);
    const subtitle = str(header.subtitle);
    if (subtitle !== undefined) lines.push(subtitle);
    for (const section of records(card.sections)) {
      const sectionHeader = str(section.header);
      if (sectionHeader !== undefined) lines.push(sectionHeader);
      for (const widget of records(section.widgets)) readWidget(widget, lines, buttons);
    }
  }
  return {
    ...(title === undefined ? {} : { title }),
    lines,
    buttons,
    ...(data.fallbackText === undefined ? {} : { fallbackText: data.fallbackText }),
  };
}
