/**
 * SurfaceFrame → a Slack message (Block Kit plus the `text` fallback Slack
 * shows in notifications). Pure.
 *
 * - A log frame is a live card: the headline is a `context` block (the same
 *   line is the `text` fallback) — a spinner glyph that moves on each live
 *   frame, the title, the elapsed clock (`3m 04s`) and what is happening now;
 *   the log is one `rich_text` block, never a `section`: Slack folds a
 *   section behind "Show more" at five lines and re-folds it on every
 *   chat.update, so the thread jumps; rich_text does not fold. Log lines are
 *   literal text elements (no mrkdwn, so no mention can form), and the tool
 *   in flight is shown as `rich_text_preformatted`, clipped. An empty live
 *   log is the 👀 ack card. Terminal frames carry ✅ ❌ ⏹ ⛔ (blocked) or ⚠️ (degraded)
 *   and the total time.
 * - `logStyle: 'plan'`: the log as a native `plan` block of `task_card`s
 *   (https://docs.slack.dev/reference/block-kit/blocks/plan-block).
 * - A card frame (policy request, question) has its buttons in an `actions`
 *   block (https://docs.slack.dev/reference/block-kit/blocks/actions-block),
 *   and the outcome line once decided.
 * - A prose frame is mrkdwn text: escaped, mentions broken; one that would pass
 *   40,000 once escaped is literal rich_text instead (renderProse).
 * Every render respects Slack's limits (limits.ts): a log too long loses its
 * oldest lines behind a marker. `renderTextOnly` is the fallback for a
 * message Slack refused (`msg_too_long`, `invalid_blocks`).
 */
import type { types } from '@slack/bolt';
import type {
  FrameAction,
  FrameCard,
  FrameHeadline,
  FrameLine,
  FrameState,
  SurfaceFrame,
} from '../../surfaces/frame.js';
import { LINE_MARKS, plainLine } from '../../surfaces/frame.js';
import { charCount, clip, SLACK_LIMITS } from './limits.js';
import { escapeMrkdwn, markdownToMrkdwn, safeMrkdwn } from './mrkdwn.js';

type Block = types.KnownBlock;
type RichTextBlock = types.RichTextBlock;
type RichTextText = types.RichTextText;
type TaskCardBlock = types.TaskCardBlock;

export type SlackLogStyle = 'card' | 'plan';

export interface SlackRenderOptions {
  /** Which live frame this is (0, 1, 2 …): the spinner moves one glyph per frame. */
  spinnerStep?: number;
  /** Default `card`. */
  logStyle?: SlackLogStyle;
  /** The characters a log card may hold: default Slack's 40,000; less when Slack refused it as too long. */
  maxMessageChars?: number;
}

/** What chat.postMessage / chat.update send: `text` always (the notification fallback), `blocks` when structured. */
export interface SlackMessage {
  text: string;
  blocks?: Block[];
}

/** The seed's activity trace: `→ <call>` while it runs, `✓`/`✗` once done (the same outcome marks as LINE_MARKS). */
const STATUS_MARKS: Record<NonNullable<FrameLine['status']>, string> = { ...LINE_MARKS, pending: '→ ' };

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;
export const ACK_GLYPH = '👀';
export const TERMINAL_GLYPHS: Readonly<Record<Exclude<FrameState, 'running'>, string>> = {
  done: '✅',
  failed: '❌',
  stopped: '⏹',
  blocked: '⛔',
  degraded: '⚠️',
};

/** `42s`, `3m 04s`, `1h 02m 03s` (floored: a clock never runs ahead). */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (hours > 0) return `${hours}h ${pad(minutes)}m ${pad(seconds)}s`;
  if (minutes > 0) return `${minutes}m ${pad(seconds)}s`;
  return `${seconds}s`;
}

/** The headline as mrkdwn: glyph, bold title, clock, and ` — <now>` while live. */
export function headlineMrkdwn(headline: FrameHeadline, opts: SlackRenderOptions = {}, ack = false): string {
  const title = `*${safeMrkdwn(headline.title)}*`;
  if (headline.state === 'running') {
    const glyph = ack ? ACK_GLYPH : SPINNER[(opts.spinnerStep ?? 0) % SPINNER.length]!;
    const now = headline.now ? ` — ${safeMrkdwn(headline.now)}` : '';
    return clip(
      `${glyph} ${title} · ${formatElapsed(headline.elapsedMs)}${now}`,
      SLACK_LIMITS.maxTextElementChars,
    );
  }
  const glyph = TERMINAL_GLYPHS[headline.state];
  return clip(`${glyph} ${title} · ${formatElapsed(headline.elapsedMs)}`, SLACK_LIMITS.maxTextElementChars);
}

/** The 👀 card a turn shows within a second of starting, before its first log line. */
export function renderAck(title: string, elapsedMs = 0): SlackMessage {
  return renderFrame({ kind: 'log', headline: { state: 'running', title, elapsedMs }, lines: [] });
}

function lineText(line: FrameLine): string {
  if (line.kind === 'marker') return line.text;
  // The one mark of the line comes from its status (the text never carries one).
  const mark = line.status ? STATUS_MARKS[line.status] : '';
  return `${line.time}  ${'  '.repeat(line.depth)}${mark}${line.text}`;
}

/** The command in flight, as a glance: at most 6 lines and 600 characters. */
export function clipActivity(text: string): string {
  const lines = text.split('\n');
  const kept = lines.slice(0, SLACK_LIMITS.activityLines).join('\n');
  const cut = lines.length > SLACK_LIMITS.activityLines ? `${kept}\n…` : kept;
  return clip(cut, SLACK_LIMITS.activityChars);
}

/** The newest line still waiting for its result, while the turn runs. */
function activityOf(frame: Extract<SurfaceFrame, { kind: 'log' }>): FrameLine | undefined {
  if (frame.headline && frame.headline.state !== 'running') return undefined;
  return frame.lines.findLast((line) => line.status === 'pending' && line.kind !== 'marker');
}

function textElement(text: string, style?: RichTextText['style']): RichTextText {
  return { type: 'text', text: clip(text, SLACK_LIMITS.maxTextElementChars), ...(style ? { style } : {}) };
}

function logBody(all: FrameLine[], activity: FrameLine | undefined): RichTextBlock | undefined {
  // Slack refuses an empty text element: a line with nothing to show is left out.
  const lines = all.filter((line) => lineText(line) !== '');
  const elements: RichTextBlock['elements'] = [];
  if (lines.length > 0) {
    elements.push({
      type: 'rich_text_section',
      elements: lines.map((line, index) =>
        textElement(
          `${lineText(line)}${index < lines.length - 1 ? '\n' : ''}`,
          line.kind === 'marker' ? { italic: true } : undefined,
        ),
      ),
    });
  }
  if (activity && activity.text !== '') {
    elements.push({ type: 'rich_text_preformatted', elements: [textElement(clipActivity(activity.text))] });
  }
  return elements.length === 0 ? undefined : { type: 'rich_text', elements };
}

const TASK_STATUS: Record<NonNullable<FrameLine['status']>, TaskCardBlock['status']> = {
  pending: 'in_progress',
  ok: 'complete',
  failed: 'error',
};

function planBlock(lines: FrameLine[]): Block | undefined {
  const tasks = lines.filter((line) => line.kind !== 'marker');
  if (tasks.length === 0) return undefined;
  const shown = tasks.slice(-SLACK_LIMITS.maxTasks);
  const cut = tasks.length - shown.length;
  return {
    type: 'plan',
    title: cut > 0 ? `Activity (${cut} earlier steps not shown)` : 'Activity',
    tasks: shown.map(
      (line, index): TaskCardBlock => ({
        type: 'task_card',
        task_id: `t${cut + index + 1}`,
        title: clip(`${'  '.repeat(line.depth)}${line.text}`, SLACK_LIMITS.maxTextElementChars) || '…',
        status: line.status ? TASK_STATUS[line.status] : 'complete',
      }),
    ),
  };
}

/** The characters a person reads in `blocks` (what Slack's 40,000 bounds). */
export function blocksCharCount(blocks: readonly Block[]): number {
  let count = 0;
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'text' || key === 'title') count += charCount(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(blocks);
  return count;
}

function cutMarker(count: number): FrameLine {
  return { kind: 'marker', depth: 0, time: '', text: `… ${count} earlier lines not shown` };
}

function renderLog(frame: Extract<SurfaceFrame, { kind: 'log' }>, opts: SlackRenderOptions): SlackMessage {
  const ack = frame.lines.length === 0 && frame.headline?.state === 'running';
  const headline = frame.headline ? headlineMrkdwn(frame.headline, opts, ack) : undefined;
  const activity = activityOf(frame);
  const build = (lines: FrameLine[]): Block[] => {
    const blocks: Block[] = [];
    if (headline) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: headline }] });
    const body = opts.logStyle === 'plan' ? planBlock(lines) : logBody(lines, activity);
    if (body) blocks.push(body);
    return blocks;
  };
  // Oldest lines go first when the card would pass Slack's 40,000 (the condenser normally keeps it far below).
  let lines = frame.lines;
  let blocks = build(lines);
  let dropped = 0;
  const maxChars = Math.min(
    opts.maxMessageChars ?? SLACK_LIMITS.maxMessageChars,
    SLACK_LIMITS.maxMessageChars,
  );
  while (blocksCharCount(blocks) > maxChars && lines.length > 1) {
    const excess = blocksCharCount(blocks) - maxChars;
    dropped += Math.max(1, Math.min(lines.length - 1, Math.ceil(excess / 100)));
    lines = [cutMarker(dropped), ...frame.lines.slice(dropped)];
    blocks = build(lines);
  }
  const fallback =
    headline ?? safeMrkdwn(frame.lines.length > 0 ? lineText(frame.lines.at(-1)!) : 'Activity log');
  // The run page's "Full log", kept on the closed card: a link whose label is no URL, so it cannot pass for another.
  if (frame.link) {
    const link = `<${escapeMrkdwn(frame.link.url)}|${escapeMrkdwn(frame.link.label)}>`;
    blocks.push({
      type: 'context',
      block_id: 'turnlog:run-link',
      elements: [{ type: 'mrkdwn', text: link }],
    });
  }
  const buttons = logButtons(frame.actions);
  if (buttons) blocks.push(buttons);
  return { text: fallback, ...(blocks.length > 0 ? { blocks } : {}) };
}

/** A log's buttons (Stop while it runs): an actions block under it; none without buttons. */
function logButtons(actions: readonly FrameAction[] | undefined): Block | undefined {
  if (actions === undefined || actions.length === 0) return undefined;
  return {
    type: 'actions',
    block_id: 'turnlog:log',
    elements: actions.slice(0, 25).map((action) => ({
      type: 'button',
      action_id: clip(action.id, SLACK_LIMITS.actionIdChars),
      value: clip(action.id, SLACK_LIMITS.buttonValueChars),
      text: {
        type: 'plain_text',
        text: clip(action.label, SLACK_LIMITS.buttonLabelChars) || '…',
        emoji: true,
      },
      ...(action.style ? { style: action.style } : {}),
    })),
  };
}

/** `block_id`s carry the card so an interaction names it; Slack allows 255 characters. */
export function cardBlockId(card: Pick<FrameCard, 'kind' | 'id'>): string {
  return clip(`turnlog:${card.kind}:${card.id}`, SLACK_LIMITS.blockIdChars);
}

function renderCard(card: FrameCard): SlackMessage {
  const icon = card.kind === 'policy' ? '🔐' : '❓';
  const blocks: Block[] = [
    {
      type: 'rich_text',
      elements: [
        { type: 'rich_text_section', elements: [textElement(`${icon} ${card.title}`, { bold: true })] },
        ...(card.body === ''
          ? []
          : [
              card.kind === 'policy'
                ? { type: 'rich_text_preformatted' as const, elements: [textElement(card.body)] }
                : { type: 'rich_text_section' as const, elements: [textElement(card.body)] },
            ]),
      ],
    },
  ];
  if (card.outcome) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: clip(safeMrkdwn(card.outcome), 3000) }],
    });
  }
  if (card.actions.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: cardBlockId(card),
      elements: card.actions.slice(0, 25).map((action) => ({
        type: 'button',
        action_id: clip(action.id, SLACK_LIMITS.actionIdChars),
        value: clip(action.id, SLACK_LIMITS.buttonValueChars),
        text: {
          type: 'plain_text',
          text: clip(action.label, SLACK_LIMITS.buttonLabelChars) || '…',
          emoji: true,
        },
        ...(action.style ? { style: action.style } : {}),
      })),
    });
  }
  const outcome = card.outcome ? ` — ${card.outcome}` : '';
  return {
    text: clip(safeMrkdwn(`${icon} ${card.title}${outcome}`), SLACK_LIMITS.maxTextElementChars),
    blocks,
  };
}

/** The frame as Block Kit, within Slack's limits. */
export function renderFrame(frame: SurfaceFrame, opts: SlackRenderOptions = {}): SlackMessage {
  switch (frame.kind) {
    case 'log':
      return renderLog(frame, opts);
    case 'card':
      return renderCard(frame.card);
    case 'prose':
      return renderProse(frame.markdown);
  }
}

/**
 * An answer as mrkdwn, when it fits Slack's 40,000 once escaped. Escaping
 * grows the text (`<` is four characters as `&lt;`), so an answer the runtime
 * split at 40,000 may not: then it goes as literal `rich_text` text elements,
 * which need no escaping and never form a mention — the whole answer, without
 * its Markdown formatting — and the mrkdwn, clipped, is only the notification text.
 */
function renderProse(markdown: string): SlackMessage {
  const mrkdwn = markdownToMrkdwn(markdown);
  if (charCount(mrkdwn) <= SLACK_LIMITS.maxMessageChars) return { text: mrkdwn };
  const chars = [...clip(markdown, SLACK_LIMITS.maxMessageChars)];
  const elements: RichTextText[] = [];
  for (let at = 0; at < chars.length; at += SLACK_LIMITS.maxTextElementChars) {
    elements.push({ type: 'text', text: chars.slice(at, at + SLACK_LIMITS.maxTextElementChars).join('') });
  }
  return {
    text: clip(mrkdwn, SLACK_LIMITS.maxTextElementChars),
    blocks: [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] }],
  };
}

/**
 * The frame as text only: for a message Slack refused as blocks
 * (`invalid_blocks`, `msg_too_long`). Escaped mrkdwn, at most 40,000
 * characters (the newest log lines are kept).
 */
export function renderTextOnly(frame: SurfaceFrame, opts: SlackRenderOptions = {}): SlackMessage {
  switch (frame.kind) {
    case 'prose':
      return { text: clip(markdownToMrkdwn(frame.markdown), SLACK_LIMITS.maxMessageChars) };
    case 'card': {
      const { card } = frame;
      const buttons =
        card.actions.length > 0 ? `\nOptions: ${card.actions.map((a) => a.label).join(' / ')}` : '';
      const outcome = card.outcome ? `\n${card.outcome}` : '';
      return {
        text: clip(
          safeMrkdwn(`${card.title}\n${card.body}${buttons}${outcome}`),
          SLACK_LIMITS.maxMessageChars,
        ),
      };
    }
    case 'log': {
      const headline = frame.headline ? `${headlineMrkdwn(frame.headline, opts)}\n` : '';
      const lines = frame.lines.map((line) => safeMrkdwn(plainLine(line)));
      // Drop the oldest lines until the rest fits (each line costs its characters plus a newline).
      let total = lines.reduce((sum, line) => sum + charCount(line) + 1, charCount(headline));
      let start = 0;
      while (total > SLACK_LIMITS.maxMessageChars - 64 && start < lines.length) {
        total -= charCount(lines[start]!) + 1;
        start += 1;
      }
      const text = () =>
        `${headline}${start > 0 ? `… ${start} earlier lines not shown\n` : ''}${lines.slice(start).join('\n')}`;
      return { text: clip(text(), SLACK_LIMITS.maxMessageChars) };
    }
  }
}
