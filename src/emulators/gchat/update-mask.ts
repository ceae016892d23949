/**
 * `updateMask` of spaces.messages.patch / update: "Required. The field paths
 * to update. Separate multiple values with commas or use `*` to update all
 * field paths." The emulator keeps text and cards, so it accepts `text`,
 * `cards_v2` (or its JSON name `cardsV2`) and `*`; a missing mask or any
 * other path is 400 INVALID_ARGUMENT.
 */
import { invalidArgument } from './google-errors.js';

export type MaskedField = 'text' | 'cardsV2';

const PATHS: Readonly<Record<string, readonly MaskedField[]>> = {
  text: ['text'],
  cards_v2: ['cardsV2'],
  cardsV2: ['cardsV2'],
  '*': ['text', 'cardsV2'],
};

/** Paths Google accepts that the emulator does not model (attachments, legacy cards, widgets, quotes). */
const NOT_EMULATED = new Set([
  'attachment',
  'cards',
  'accessory_widgets',
  'accessoryWidgets',
  'quoted_message_metadata',
  'quotedMessageMetadata',
]);

export function parseUpdateMask(value: string | null): Set<MaskedField> {
  if (value === null || value.trim() === '')
    throw invalidArgument(
      'updateMask is required: the field paths to update, e.g. "text" or "text,cards_v2".',
    );
  const fields = new Set<MaskedField>();
  for (const raw of value.split(',')) {
    const path = raw.trim();
    const mapped = PATHS[path];
    if (mapped) {
      for (const field of mapped) fields.add(field);
      continue;
    }
    if (NOT_EMULATED.has(path))
      throw invalidArgument(
        `updateMask path ${JSON.stringify(path)} is not emulated; use text, cards_v2 or *.`,
      );
    throw invalidArgument(
      `Invalid updateMask path ${JSON.stringify(path)}: supported paths are text, attachment, cards, cards_v2, accessory_widgets, quoted_message_metadata, or *.`,
    );
  }
  return fields;
}
