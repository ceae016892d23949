/**
 * Block Kit as `chat.postMessage` / `chat.update` check it: parsed from the
 * `blocks` argument (a JSON string in a form body, an array in a JSON body),
 * validated against the published limits (50 blocks, section text 3000,
 * header 150, markdown 12,000, block_id 255 and unique), and read back as
 * the text a person sees and the broad mentions that would fire.
 *
 * The block types turnlog sends (rich_text, section, context, header,
 * actions with buttons, markdown, divider, plan, task_card) are checked
 * field by field; the other message block types are accepted by name.
 * Every text element is held to 3,000 characters, the section's published
 * bound (Slack publishes none for a rich_text text element: the emulator
 * errs towards refusing, so a renderer that passes here passes on Slack).
 * https://docs.slack.dev/reference/block-kit/blocks
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

/** The bound held for every text element (see the module comment). */
export const MAX_TEXT_ELEMENT_CHARS = 3000;

const richTextElement = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string().max(MAX_TEXT_ELEMENT_CHARS) }),
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

const richTextBlock = z.looseObject({
  type: z.literal('rich_text'),
  block_id: blockId,
  elements: z.array(richTextContainer),
});

/** https://docs.slack.dev/reference/block-kit/block-elements/button-element */
const button = z.looseObject({
  type: z.literal('button'),
  text: plainText(75),
  action_id: z.string().min(1).max(255).optional(),
  value: z.string().max(2000).optional(),
  url: z.string().max(3000).optional(),
  style: z.enum(['primary', 'danger']).optional(),
});
/** Buttons are checked field by field (each problem named by its pointer); other elements by type only. */
const actionElement = z.looseObject({ type: z.string().min(1) }).superRefine((element, ctx) => {
  if (element.type !== 'button') return;
  const parsed = button.safeParse(element);
  if (parsed.success) return;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
});

/** https://docs.slack.dev/reference/block-kit/blocks/task-card-block — status `complete`, never `completed`. */
const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'] as const;
const taskCard = z.looseObject({
  type: z.literal('task_card'),
  block_id: blockId,
  task_id: z.string().min(1),
  title: z.string().min(1).max(MAX_TEXT_ELEMENT_CHARS),
  status: z.enum(TASK_STATUSES),
  details: richTextBlock.optional(),
  output: richTextBlock.optional(),
});
type TaskCard = z.infer<typeof taskCard>;

/** https://docs.slack.dev/reference/block-kit/blocks/plan-block — at most 50 task cards. */
const MAX_TASKS = 50;

/** Blocks accepted by name only: turnlog does not send them, so their fields are not checked. */
const OTHER_BLOCK_TYPES = ['image', 'video', 'file', 'input', 'table', 'context_actions'] as const;

const block = z.discriminatedUnion('type', [
  richTextBlock,
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
    elements: z.array(actionElement).min(1).max(25),
  }),
  z.looseObject({ type: z.literal('divider'), block_id: blockId }),
  z.looseObject({
    type: z.literal('plan'),
    block_id: blockId,
    title: z.string().min(1).max(MAX_TEXT_ELEMENT_CHARS),
    tasks: z.array(taskCard).max(MAX_TASKS).optional(),
  }),
  taskCard,
  ...OTHER_BLOCK_TYPES.map((type) => z.looseObject({ type: z.literal(type), block_id: blockId })),
]);
export type Block = z.infer<typeof block>;

const MAX_BLOCKS = 50;

const blockList = z
  .array(block)
  .max(MAX_BLOCKS)
  .superRefine((blocks, ctx) => {
    const seen = new Set<string>();
    const actionIds = new Set<string>();
    const taskIds = new Set<string>();
    blocks.forEach((each, index) => {
      if (each.block_id !== undefined) {
        if (seen.has(each.block_id)) {
          ctx.addIssue({ code: 'custom', message: 'duplicate block_id', path: [index, 'block_id'] });
        }
        seen.add(each.block_id);
      }
      if (each.type === 'actions') {
        each.elements.forEach((element, at) => {
          const id = (element as { action_id?: unknown }).action_id;
          if (typeof id !== 'string') return;
          if (actionIds.has(id)) {
            ctx.addIssue({
              code: 'custom',
              message: 'duplicate action_id',
              path: [index, 'elements', at, 'action_id'],
            });
          }
          actionIds.add(id);
        });
      }
      const tasks: [TaskCard, (string | number)[]][] =
        each.type === 'plan'
          ? (each.tasks ?? []).map((task, at) => [task, [index, 'tasks', at, 'task_id']])
          : each.type === 'task_card'
            ? [[each, [index, 'task_id']]]
            : [];
      for (const [task, path] of tasks) {
        if (taskIds.has(task.task_id)) ctx.addIssue({ code: 'custom', message: 'duplicate task_id', path });
        taskIds.add(task.task_id);
      }
    });
    // "plan and task_card blocks cannot be mixed" in one message.
    const plan = blocks.findIndex((each) => each.type === 'plan');
    const card = blocks.findIndex((each) => each.type === 'task_card');
    if (plan >= 0 && card >= 0) {
      ctx.addIssue({ code: 'custom', message: 'plan and task_card blocks cannot be mixed', path: [card] });
    }
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

const TASK_MARKS: Record<TaskCard['status'], string> = {
  pending: '○',
  in_progress: '◐',
  complete: '✓',
  error: '✗',
};

const taskLine = (task: TaskCard): string => `${TASK_MARKS[task.status]} ${task.title}`;

/** A message's buttons as a person sees them: the action id a click sends and the label. */
export interface VisibleButton {
  action: string;
  label: string;
}

export function buttonsInBlocks(blocks: Block[]): VisibleButton[] {
  return blocks.flatMap((each) =>
    each.type === 'actions'
      ? each.elements.flatMap((element) => {
          const parsed = button.safeParse(element);
          if (!parsed.success) return [];
          return [{ action: parsed.data.action_id ?? parsed.data.value ?? '', label: parsed.data.text.text }];
        })
      : [],
  );
}

function blockLines(each: Block): string[] {
  switch (each.type) {
    case 'rich_text':
      return richTextLines(each.elements);
    case 'plan':
      return [each.title, ...(each.tasks ?? []).map(taskLine)];
    case 'task_card':
      return [taskLine(each)];
    case 'actions': {
      const labels = buttonsInBlocks([each]).map((shown) => `[${shown.label}]`);
      return labels.length > 0 ? [labels.join(' ')] : [];
    }
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

// `<@U0123ABCD>` / `<@W…>` (an enterprise user), optionally `|label`: pings that person.
const PERSON_MENTION = /<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>/g;

/**
 * The mentions Slack parses in mrkdwn: the broad ones (`<!channel>` …) and a
 * person's (`<@U…>`), normalised (`<@U1|bob>` → `<@U1>`). Escaped text
 * (`&lt;@U1&gt;`) parses as nothing.
 */
export function mrkdwnMentionsIn(text: string): string[] {
  const people = [...text.matchAll(PERSON_MENTION)].map((match) => `<@${match[1]}>`);
  return [...broadMentionsFor('slack', text), ...people];
}

/** mrkdwn text objects parse mentions; plain_text never does. */
function mrkdwnMentions(text: { type: string; text: string } | undefined): string[] {
  return text?.type === 'mrkdwn' ? mrkdwnMentionsIn(text.text) : [];
}

/** Text elements are literal: only broadcast and usergroup elements ping. */
function richTextMentions(each: z.infer<typeof richTextBlock>): string[] {
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
            : element.type === 'user'
              ? `<@${element.user_id}>`
              : null,
      )
      .filter((mention): mention is string => mention !== null),
  );
}

const taskMentions = (task: TaskCard): string[] =>
  [task.details, task.output].flatMap((rich) => (rich ? richTextMentions(rich) : []));

function blockMentions(each: Block): string[] {
  switch (each.type) {
    case 'rich_text':
      return richTextMentions(each);
    case 'plan':
      return (each.tasks ?? []).flatMap(taskMentions);
    case 'task_card':
      return taskMentions(each);
    case 'section':
      return [mrkdwnMentions(each.text), ...(each.fields ?? []).map(mrkdwnMentions)].flat();
    case 'context':
      return each.elements.flatMap((element) => (element.type === 'image' ? [] : mrkdwnMentions(element)));
    case 'markdown':
      // Unpublished whether a markdown block parses `<!channel>`: assume it does, so a test errs on the safe side.
      return mrkdwnMentionsIn(each.text);
    default:
      return [];
  }
}

/** The mentions the blocks would fire: broad (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`) and a person's (`<@U…>`). */
export function broadMentionsInBlocks(blocks: Block[]): string[] {
  return [...new Set(blocks.flatMap(blockMentions))];
}
