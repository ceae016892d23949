/**
 * A message's content as chat.postMessage and chat.update read it: `text`
 * and/or `blocks`, checked against Slack's limits, with the text a person
 * sees and the broad mentions that would fire.
 */
import type { PlatformReply } from '../core/index.js';
import { booleanArg, stringArg } from './args.js';
import { type Block, blocksToText, buttonsInBlocks, parseBlocksArg, type VisibleButton } from './blocks.js';
import { slackError } from './errors.js';
import { slackBroadMentions } from './mentions.js';

/** "Provide no more than 40,000 characters" (chat.postMessage `text`); over it → `msg_too_long`. */
export const MAX_TEXT_CHARS = 40_000;

export interface MessageContent {
  /** The `text` argument: the message itself, or the notification fallback beside blocks. */
  text: string | undefined;
  blocks: Block[] | undefined;
  /** What a person sees: the blocks' text when there are blocks, else `text`. */
  visibleText: string;
  /** The buttons a person can press: `[{action, label}]` (empty without any). */
  buttons: VisibleButton[];
  mentions: string[];
}

/** Characters as Slack counts them: code points, so an emoji is one. */
function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

export function readContent(
  fields: Record<string, unknown>,
  unsupportedBlocks: ReadonlySet<string> = new Set(),
): { ok: true; content: MessageContent } | { ok: false; reply: PlatformReply } {
  const blocksArg = parseBlocksArg(fields.blocks);
  if (blocksArg.kind === 'unreadable') return { ok: false, reply: slackError('invalid_blocks_format') };
  if (blocksArg.kind === 'invalid') {
    return {
      ok: false,
      reply: slackError('invalid_blocks', {
        errors: blocksArg.errors,
        response_metadata: { messages: blocksArg.errors.map((error) => `[ERROR] ${error}`) },
      }),
    };
  }
  const blocks = blocksArg.kind === 'blocks' ? blocksArg.blocks : undefined;
  const unsupported = blocks?.findIndex((each) => unsupportedBlocks.has(each.type)) ?? -1;
  if (unsupported >= 0) {
    const error = `unsupported block type ${blocks![unsupported]!.type} [json-pointer:/blocks/${unsupported}/type]`;
    return {
      ok: false,
      reply: slackError('invalid_blocks', {
        errors: [error],
        response_metadata: { messages: [`[ERROR] ${error}`] },
      }),
    };
  }
  const rawText = stringArg(fields, 'text');
  const text = rawText === '' ? undefined : rawText;
  if (text === undefined && blocks === undefined) return { ok: false, reply: slackError('no_text') };
  if (text !== undefined && charCount(text) > MAX_TEXT_CHARS) {
    return { ok: false, reply: slackError('msg_too_long') };
  }
  const linkNames = stringArg(fields, 'parse') === 'full' || booleanArg(fields, 'link_names');
  return {
    ok: true,
    content: {
      text,
      blocks,
      visibleText: blocks ? blocksToText(blocks) : (text ?? ''),
      buttons: blocks ? buttonsInBlocks(blocks) : [],
      mentions: slackBroadMentions({ text, blocks, linkNames }),
    },
  };
}
