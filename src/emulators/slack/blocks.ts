/**
 * Block Kit as `chat.postMessage` / `chat.update` check it: parsed from the
 * `blocks` argument (a JSON string in a form body, an array in a JSON body),
 * validated against the published limits (50 blocks, section text 3000,
 * header 150, markdown 12,000, block_id 255 and unique), and read back as
 * the text a person sees and the broad mentions that would fire.
 *
 * The block types turnlog sends (rich_text, section, context, header,
 * actions, markdown, divider) are checked field by field; the other
 * message block types are accepted by name.
 */
import { z } from 'zod';
import { broadMentionsFor } from '../core/index.js';

const blockId = z.string().min(1).max(255).optional();

const textObject = (max: number) =>
  z.looseObject({
    type: z.enum(['plain_text', 'mrkdwn']),
    text: z.string().min(1).max(max),
    emoji: z.boolean().optional(),
    verbatim: z.boolean().optional(),
  });
const plainText = (max: number) => textObject(max).extend({ type: z.literal('plain_text') });

const richTextElement = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('link'), url: z.string().min(1), text: z.string().optional() }),
  z.looseObject({ type: z.literal('emoji'), name: z.string().min(1) }),
  z.looseObject({ type: z.literal('user'), user_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('usergroup'), usergroup_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('channel'), channel_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('team'), team_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('broadcast'), range: z.enum(['channel', 'here', 'everyone']) }),
  z.looseObject({
    type: z.literal('date'),
    timestamp: z.number().int(),
    format: z.string().min(1),
    fallback: z.string().optional(),
  }),
  z.looseObject({ type: z.literal('color'), value: z.string().min(1) }),
]);
type RichTextElement = z.infer<typeof richTextElement>;

const richTextSection = z.looseObject({
  type: z.literal('rich_text_section'),
  elements: z.array(richTextElement),
});
const richTextContainer = z.discriminatedUnion('type', [
  richTextSection,
  z.looseObject({ type: z.literal('rich_text_preformatted'), elements: z.array(richTextElement) }),
  z.looseObject({ type: z.literal('rich_text_quote'), elements: z.array(richTextElement) }),
  z.looseObject({
    type: z.literal('rich_text_list'),
    style: z.enum(['bullet', 'ordered']),
    elements: z.array(richTextSection),
    indent: z.number().int().min(0).max(8).optional(),
  }),
]);

/** Blocks accepted by name only: turnlog does not send them, so their fields are not checked. */
const OTHER_BLOCK_TYPES = ['image', 'video', 'file', 'input', 'table', 'context_actions'] as const;

const block = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('rich_text'), block_id: blockId, elements: z.array(richTextContainer) }),
  z
    .looseObject({
      type: z.literal('section'),
      block_id: blockId,
      text: textObject(3000).optional(),
      fields: z.array(textObject(2000)).min(1).max(10).optional(),
    })
    .refine((section) => section.text !== undefined || section.fields !== undefined, {
      message: 'must provide either text or fields',
    }),
  z.looseObject({
    type: z.literal('context'),
    block_id: blockId,
    elements: z
      .array(z.union([textObject(3000), z.looseObject({ type: z.literal('image') })]))
      .min(1)
      .max(10),
  }),
  z.looseObject({ type: z.literal('header'), block_id: blockId, text: plainText(150) }),
  z.looseObject({ type: z.literal('markdown'), block_id: blockId, text: z.string().min(1).max(12_000) }),
  z.looseObject({
    type: z.literal('actions'),
    block_id: blockId,
    elements: z
      .array(z.looseObject({ type: z.string().min(1) }))
      .min(1)
      .max(25),
  }),
  z.looseObject({ type: z.literal('divider'), block_id: blockId }),
  ...OTHER_BLOCK_TYPES.map((type) => z.looseObject({ type: z.literal(type), block_id: blockId })),
]);
export type Block = z.infer<typeof block>;

const MAX_BLOCKS = 50;

const blockList = z
  .array(block)
  .max(MAX_BLOCKS)
  .superRefine((blocks, ctx) => {
    const seen = new Set<string>();
    blocks.forEach((each, index) => {
      if (each.block_id === undefined) return;
      if (seen.has(each.block_id)) {
        ctx.addIssue({ code: 'custom', message: 'duplicate block_id', path: [index, 'block_id'] });
      }
      seen.add(each.block_id);
    });
  });

export type BlocksArg =
  | { kind: 'absent' }
  | { kind: 'blocks'; blocks: Block[] }
  /** Not a JSON array: Slack's `invalid_blocks_format`. */
  | { kind: 'unreadable' }
  /** A JSON array that breaks Block Kit: Slack's `invalid_blocks`, with one message per problem. */
  | { kind: 'invalid'; errors: string[] };

/** Reads the `blocks` argument. An empty list counts as absent (the message then needs `text`). */
export function parseBlocksArg(value: unknown): BlocksArg {
  if (value === undefined || value === null || value === '') return { kind: 'absent' };
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return { kind: 'unreadable' };
    }
  }
  if (!Array.isArray(list)) return { kind: 'unreadable' };
  if (list.length === 0) return { kind: 'absent' };
  const parsed = blockList.safeParse(list);
  if (!parsed.success) {
    // Slack's messages end with a JSON pointer into the request: `… [json-pointer:/blocks/0/text/text]`.
    const errors = parsed.error.issues.map(
      (issue) =>
        `${issue.message} [json-pointer:/blocks${issue.path.map((key) => `/${String(key)}`).join('')}]`,
    );
    return { kind: 'invalid', errors };
  }
  return { kind: 'blocks', blocks: parsed.data };
}

function inlineText(element: RichTextElement): string {
  switch (element.type) {
    case 'text':
      return element.text;
    case 'link':
      return element.text ?? element.url;
    case 'emoji':
      return `:${element.name}:`;
    case 'user':
      return `<@${element.user_id}>`;
    case 'usergroup':
      return `<!subteam^${element.usergroup_id}>`;
    case 'channel':
      return `<#${element.channel_id}>`;
    case 'team':
      return element.team_id;
    case 'broadcast':
      return `@${element.range}`;
    case 'date':
      return element.fallback ?? String(element.timestamp);
    case 'color':
      return element.value;
  }
}

function richTextLines(elements: z.infer<typeof richTextContainer>[]): string[] {
  return elements.map((container) => {
    if (container.type === 'rich_text_list') {
      return container.elements
        .map((item, index) => {
          const marker = container.style === 'ordered' ? `${index + 1}.` : '•';
          return `${marker} ${item.elements.map(inlineText).join('')}`;
        })
        .join('\n');
    }
    const text = container.elements.map(inlineText).join('');
    return container.type === 'rich_text_quote' ? `> ${text}` : text;
  });
}

function blockLines(each: Block): string[] {
  switch (each.type) {
    case 'rich_text':
      return richTextLines(each.elements);
    case 'section':
      return [each.text?.text, ...(each.fields ?? []).map((field) => field.text)].filter(
        (line): line is string => line !== undefined,
      );
    case 'context':
      return [each.elements.flatMap((element) => (element.type === 'image' ? [] : [element.text])).join(' ')];
    case 'header':
      return [each.text.text];
    case 'markdown':
      return [each.text];
    default:
      return [];
  }
}

/** The message as a person reads it: the blocks' text, one block per line (rich_text keeps its own line breaks). */
export function blocksToText(blocks: Block[]): string {
  return blocks.flatMap(blockLines).join('\n');
}

/** mrkdwn text objects parse `<!channel>`; plain_text never does. */
function mrkdwnMentions(text: { type: string; text: string } | undefined): string[] {
  return text?.type === 'mrkdwn' ? broadMentionsFor('slack', text.text) : [];
}

function blockMentions(each: Block): string[] {
  switch (each.type) {
    case 'rich_text':
      // Text elements are literal: only broadcast and usergroup elements ping.
      return each.elements.flatMap((container) =>
        (container.type === 'rich_text_list'
          ? container.elements.flatMap((item) => item.elements)
          : container.elements
        )
          .map((element) =>
            element.type === 'broadcast'
              ? `<!${element.range}>`
              : element.type === 'usergroup'
                ? `<!subteam^${element.usergroup_id}>`
                : null,
          )
          .filter((mention): mention is string => mention !== null),
      );
    case 'section':
      return [mrkdwnMentions(each.text), ...(each.fields ?? []).map(mrkdwnMentions)].flat();
    case 'context':
      return each.elements.flatMap((element) => (element.type === 'image' ? [] : mrkdwnMentions(element)));
    case 'markdown':
      // Unpublished whether a markdown block parses `<!channel>`: assume it does, so a test errs on the safe side.
      return broadMentionsFor('slack', each.text);
    default:
      return [];
  }
}

/** The broad mentions (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`) the blocks would fire. */
export function broadMentionsInBlocks(blocks: Block[]): string[] {
  return [...new Set(blocks.flatMap(blockMentions))];
}
