/**
 * SurfaceFrame → a Discord message body. Pure.
 *
 * - A log frame becomes Components V2 (`IS_COMPONENTS_V2`,
 *   https://discord.com/developers/docs/components/reference): a Container
 *   whose `accent_color` shows the state, a headline Text Display with the
 *   elapsed time, a Separator, and Text Displays with the log lines — within
 *   Discord's 40 components and 4,000 characters of text per message. With
 *   `logStyle: 'text'` it is plain `content` of at most 2,000 characters.
 * - A card (policy request, question) is a Container with its text and an
 *   Action Row of buttons whose `custom_id` is the action id.
 * - Prose (answers) is `content` (Discord markdown), or Text Displays when
 *   longer than 2,000 characters.
 *
 * Every frame string except prose is user text shown literally: markdown is
 * escaped (no masked link, heading or code can form) and mentions are broken
 * with a zero-width space, so nothing even looks like a ping.
 * `allowed_mentions: {parse: []}` on every call is the hard guarantee; this
 * is the belt to its braces.
 */
import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIButtonComponentWithURL,
  type APIComponentInContainer,
  type APIContainerComponent,
  type APIMessageTopLevelComponent,
  type APITextDisplayComponent,
  ButtonStyle,
  ComponentType,
  MessageFlags,
  SeparatorSpacingSize,
} from '@discordjs/core/http-only';
import type {
  FrameAction,
  FrameCard,
  FrameHeadline,
  FrameLine,
  FrameLink,
  FrameState,
  SurfaceFrame,
} from '../../surfaces/frame.js';

/** https://discord.com/developers/docs/resources/message#create-message and …/components/reference */
export const DISCORD_LIMITS = {
  contentChars: 2000,
  componentsV2TextChars: 4000,
  componentsV2Count: 40,
  buttonsPerRow: 5,
  actionRows: 5,
  customIdChars: 100,
  buttonLabelChars: 80,
  threadNameChars: 100,
} as const;

export type LogStyle = 'components' | 'text';

export interface RenderOptions {
  logStyle: LogStyle;
}

/** The body fields a create or an edit sends (the surface adds `allowed_mentions`, `nonce`, the silent flag). */
export interface DiscordMessageBody {
  /** `null` on a Components V2 body: an edit that upgrades a message must clear its content. */
  content: string | null;
  components: APIMessageTopLevelComponent[];
  flags: number;
}

/** The Container's accent per state (Discord's palette: blurple, green, red, grey). */
export const STATE_COLORS: Readonly<Record<FrameState, number>> = {
  running: 0x5865f2,
  done: 0x57f287,
  failed: 0xed4245,
  stopped: 0x95a5a6,
  blocked: 0xed4245,
  degraded: 0xfee75c,
};

const STATE_LABELS: Readonly<Record<FrameState, string>> = {
  running: '⏳ Running',
  done: '✅ Done',
  failed: '❌ Failed',
  stopped: '⏹️ Stopped',
  blocked: '⛔ Blocked',
  degraded: '⚠️ Degraded',
};

const CARD_COLOR = 0xfee75c;
const DECIDED_CARD_COLOR = 0x95a5a6;

const STATUS_GLYPHS = { pending: '⏳', ok: '✅', failed: '❌' } as const;

/** Invisible; breaks a mention token so Discord parses no ping and shows no pill. */
export const MENTION_BREAK = '\u200B';

/** Length as Discord counts it (Unicode code points). */
export const charLength = (text: string) => [...text].length;

function cut(text: string, max: number, marker = '…'): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(0, max - charLength(marker))).join('') + marker;
}

/**
 * Breaks every mention form Discord parses: users `<@id>` / `<@!id>`, roles
 * `<@&id>`, channels `<#id>`, commands `</name:id>`, timestamps `<t:…>` and
 * custom emoji `<:n:id>`, plus `@everyone` and `@here`.
 */
export function breakMentions(text: string): string {
  return text
    .replace(/<(?=[@#/:]|a:|t:)/g, `<${MENTION_BREAK}`)
    .replace(/@(?=everyone|here)/gi, `@${MENTION_BREAK}`);
}

/** Markdown that would format or link: escaped with a backslash, which Discord shows as the plain character. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|[\]()]/g, '\\$&').replace(/^(\s*)(#|>|-|\d+\.)/gm, '$1\\$2');
}

/** User text shown literally: no markup, no link, no mention. */
export function literal(text: string): string {
  return breakMentions(escapeMarkdown(text));
}

/** Inside a code block only a closing fence could escape: break fences apart. */
function codeBlock(text: string): string {
  return `\`\`\`\n${breakMentions(text.replace(/```/g, `\`${MENTION_BREAK}\`${MENTION_BREAK}\``))}\n\`\`\``;
}

/** `45s`, `3m 04s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const pad = (value: number) => String(value).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${pad(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${pad(minutes % 60)}m`;
}

export function headlineText(headline: FrameHeadline): string {
  const parts = [
    `**${STATE_LABELS[headline.state]}**`,
    literal(headline.title),
    formatElapsed(headline.elapsedMs),
  ];
  const now = headline.now === undefined || headline.now === '' ? '' : `\n-# ${literal(headline.now)}`;
  return `${parts.filter((part) => part !== '').join(' · ')}${now}`;
}

export function lineText(line: FrameLine): string {
  if (line.kind === 'marker') return `-# ${literal(line.text)}`;
  const indent = line.depth > 0 ? `${'\u2003'.repeat(line.depth)}↳ ` : '';
  const glyph = line.status ? `${STATUS_GLYPHS[line.status]} ` : '• ';
  const time = line.time === '' ? '' : `\`${line.time}\` `;
  return `${time}${indent}${glyph}${literal(line.text)}`;
}

/**
 * The lines that fit `budget` characters (joined by newlines): the newest
 * ones, behind a marker naming how many earlier lines were left out. The
 * condenser keeps frames within the platform's budget; this only guarantees
 * that a frame that slipped past never becomes a refused message.
 */
function fitLines(lines: string[], budget: number): string[] {
  const total = lines.reduce((sum, line) => sum + charLength(line) + 1, 0);
  if (total - 1 <= budget) return lines;
  const kept: string[] = [];
  let used = 0;
  const markerRoom = 40;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const size = charLength(lines[index]!) + 1;
    if (used + size > budget - markerRoom) break;
    kept.unshift(lines[index]!);
    used += size;
  }
  const omitted = lines.length - kept.length;
  return [`-# … ${omitted} earlier line${omitted === 1 ? '' : 's'} not shown`, ...kept];
}

const textDisplay = (content: string): APITextDisplayComponent => ({
  type: ComponentType.TextDisplay,
  content,
});

/** Lines per Text Display: enough that a long log stays far below the 40-component limit. */
const LINES_PER_DISPLAY = 20;

function renderLogComponents(frame: Extract<SurfaceFrame, { kind: 'log' }>): DiscordMessageBody {
  const headline = frame.headline ? headlineText(frame.headline) : undefined;
  const room = DISCORD_LIMITS.componentsV2TextChars - (headline ? charLength(headline) : 0);
  const lines = fitLines(frame.lines.map(lineText), room);
  const inner: APIComponentInContainer[] = [];
  if (headline) inner.push(textDisplay(headline));
  if (headline && lines.length > 0) {
    inner.push({ type: ComponentType.Separator, divider: true, spacing: SeparatorSpacingSize.Small });
  }
  for (let index = 0; index < lines.length; index += LINES_PER_DISPLAY) {
    inner.push(textDisplay(lines.slice(index, index + LINES_PER_DISPLAY).join('\n')));
  }
  // A Container needs a component: an empty log shows its state alone.
  if (inner.length === 0) inner.push(textDisplay('-# (no activity yet)'));
  inner.push(...logButtons(frame.actions), ...linkRow(frame.link));
  const container: APIContainerComponent = {
    type: ComponentType.Container,
    ...(frame.headline ? { accent_color: STATE_COLORS[frame.headline.state] } : {}),
    components: inner,
  };
  return { content: null, components: [container], flags: MessageFlags.IsComponentsV2 };
}

function renderLogText(frame: Extract<SurfaceFrame, { kind: 'log' }>): DiscordMessageBody {
  const headline = frame.headline ? headlineText(frame.headline) : undefined;
  const room = DISCORD_LIMITS.contentChars - (headline ? charLength(headline) + 1 : 0);
  const lines = fitLines(frame.lines.map(lineText), room);
  const content = [...(headline ? [headline] : []), ...lines].join('\n');
  return {
    content: content === '' ? '-# (no activity yet)' : content,
    components: [...logButtons(frame.actions), ...linkRow(frame.link)],
    flags: 0,
  };
}

/** A log's buttons (Stop while it runs): an action row; none without buttons (an edit sending none removes them). */
function logButtons(
  actions: readonly FrameAction[] | undefined,
): APIActionRowComponent<APIButtonComponentWithCustomId>[] {
  return actions === undefined || actions.length === 0 ? [] : buttonRows(actions);
}

/**
 * The run page's "Full log": a link button (style Link, a `url`, no custom id),
 * so the label is Discord's own chrome and the target shows on hover.
 */
function linkRow(link: FrameLink | undefined): APIActionRowComponent<APIButtonComponentWithURL>[] {
  if (link === undefined) return [];
  return [
    {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.Button, style: ButtonStyle.Link, label: link.label, url: link.url }],
    },
  ];
}

const BUTTON_STYLES = { primary: ButtonStyle.Primary, danger: ButtonStyle.Danger } as const;

/** Thrown for a card Discord would refuse (too many buttons, a repeated or overlong action id). */
export class DiscordRenderError extends Error {
  override readonly name = 'DiscordRenderError';
}

function buttonRows(
  actions: readonly FrameAction[],
): APIActionRowComponent<APIButtonComponentWithCustomId>[] {
  const max = DISCORD_LIMITS.buttonsPerRow * DISCORD_LIMITS.actionRows;
  if (actions.length > max) {
    throw new DiscordRenderError(
      `a card has ${actions.length} actions; Discord shows at most ${max} buttons`,
    );
  }
  const seen = new Set<string>();
  const buttons = actions.map((action): APIButtonComponentWithCustomId => {
    if (action.id === '' || charLength(action.id) > DISCORD_LIMITS.customIdChars) {
      throw new DiscordRenderError(
        `action id ${JSON.stringify(action.id)} must be 1–${DISCORD_LIMITS.customIdChars} characters (a Discord custom_id)`,
      );
    }
    if (seen.has(action.id))
      throw new DiscordRenderError(`action id ${JSON.stringify(action.id)} appears twice`);
    seen.add(action.id);
    return {
      type: ComponentType.Button,
      style: action.style ? BUTTON_STYLES[action.style] : ButtonStyle.Secondary,
      // Button labels are plain text (no markdown), but a mention-looking label still reads as a ping.
      label: cut(breakMentions(action.label), DISCORD_LIMITS.buttonLabelChars) || action.id,
      custom_id: action.id,
    };
  });
  const rows: APIActionRowComponent<APIButtonComponentWithCustomId>[] = [];
  for (let index = 0; index < buttons.length; index += DISCORD_LIMITS.buttonsPerRow) {
    rows.push({
      type: ComponentType.ActionRow,
      components: buttons.slice(index, index + DISCORD_LIMITS.buttonsPerRow),
    });
  }
  return rows;
}

function renderCard(card: FrameCard): DiscordMessageBody {
  const icon = card.kind === 'policy' ? '🔐' : '❓';
  const title = `${icon} **${literal(card.title)}**`;
  const outcome = card.outcome === undefined ? undefined : literal(card.outcome);
  const fixed = charLength(title) + (outcome ? charLength(outcome) : 0) + 16;
  const bodyRoom = DISCORD_LIMITS.componentsV2TextChars - fixed;
  const body =
    card.kind === 'policy' ? codeBlock(cut(card.body, bodyRoom - 8)) : cut(literal(card.body), bodyRoom);
  const inner: APIComponentInContainer[] = [textDisplay(title), textDisplay(body)];
  if (outcome) inner.push(textDisplay(outcome));
  inner.push(...buttonRows(card.actions));
  return {
    content: null,
    components: [
      {
        type: ComponentType.Container,
        accent_color: card.actions.length > 0 ? CARD_COLOR : DECIDED_CARD_COLOR,
        components: inner,
      },
    ],
    flags: MessageFlags.IsComponentsV2,
  };
}

/**
 * Prose is markdown: kept, but a masked link shows its real target and mentions break.
 * Discord's parser also reads labels with nested brackets and targets with a title
 * (`[a](url "t")`): whatever `](` is left after the plain form is rewritten gets a
 * zero-width space, so no masked link can form.
 */
export function proseMarkdown(markdown: string): string {
  return breakMentions(
    markdown.replace(/\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?\s*\)/g, '$1 (<$2>)').replace(/\]\(/g, ']\u200B('),
  );
}

function renderProse(markdown: string): DiscordMessageBody {
  const text = proseMarkdown(markdown);
  if (charLength(text) <= DISCORD_LIMITS.contentChars) {
    return { content: text === '' ? '\u200B' : text, components: [], flags: 0 };
  }
  // Longer answers fit Components V2's 4,000 characters; past that they are cut, saying so.
  const shown = cut(text, DISCORD_LIMITS.componentsV2TextChars, '\n-# … (answer cut at 4,000 characters)');
  return { content: null, components: [textDisplay(shown)], flags: MessageFlags.IsComponentsV2 };
}

export function renderFrame(frame: SurfaceFrame, opts: RenderOptions): DiscordMessageBody {
  switch (frame.kind) {
    case 'log':
      return opts.logStyle === 'text' ? renderLogText(frame) : renderLogComponents(frame);
    case 'card':
      return renderCard(frame.card);
    case 'prose':
      return renderProse(frame.markdown);
  }
}

/** Every component in a tree (a Container's children and accessories count), as Discord counts toward 40. */
export function componentCount(components: readonly unknown[]): number {
  let count = 0;
  for (const component of components) {
    count += 1;
    const nested = component as { components?: unknown[]; accessory?: unknown };
    if (Array.isArray(nested.components)) count += componentCount(nested.components);
    if (nested.accessory) count += 1;
  }
  return count;
}

/** The text of every Text Display in a tree, in order. */
export function textDisplays(components: readonly unknown[]): string[] {
  const texts: string[] = [];
  for (const component of components) {
    const c = component as { type?: number; content?: unknown; components?: unknown[] };
    if (c.type === ComponentType.TextDisplay && typeof c.content === 'string') texts.push(c.content);
    if (Array.isArray(c.components)) texts.push(...textDisplays(c.components));
  }
  return texts;
}

/** A thread name (1–100 characters, no newlines) from a title. */
export function threadName(title: string | undefined): string {
  const name = (title ?? '').replace(/\s+/g, ' ').trim();
  return cut(name === '' ? 'activity log' : name, DISCORD_LIMITS.threadNameChars);
}
