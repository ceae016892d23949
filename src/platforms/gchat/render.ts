/**
 * Google Chat rendering (pure): a SurfaceFrame becomes message text in Chat's
 * own syntax, or a card (cardsV2) with its plain-text fallback.
 * https://developers.google.com/workspace/chat/format-messages
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/cards
 *
 * A log frame's lines are user-supplied content shown verbatim, so what Chat
 * would turn into markup there is broken with an invisible zero-width space:
 * backtick runs (a stray ``` would open a code block swallowing the rest of
 * the log) and closed `<…>` tokens (links with a misleading label,
 * mentions). Single `*`, `_`, `~` stay: at worst they restyle part of one
 * line, and commands keep copying cleanly. A prose frame (the final answer)
 * has its Markdown converted to Chat syntax outside code. Mentions are
 * neutralized everywhere (`<users/all>` and any `<users/…>` can never ping).
 */
import { safeLinks } from '../../render/links.js';
import { MENTION_BREAK, neutralizeMentions } from '../../render/mentions.js';
import {
  type FrameAction,
  type FrameCard,
  type FrameHeadline,
  type FrameLine,
  type FrameLink,
  plainHeadline,
  plainLine,
  type SurfaceFrame,
} from '../../surfaces/frame.js';

/** Mentions only Google Chat parses: any `<users/…>` (a person's mention pings that person too). */
export const GCHAT_MENTION_FORMS: readonly string[] = ['<(?=users/)'];

const neutralize = (text: string): string => neutralizeMentions(text, GCHAT_MENTION_FORMS);

/** The `function` a card button invokes; its parameters carry `requestId` and `decision`. */
export const POLICY_DECISION_ACTION = 'turnlog.policyDecision';

/** A backtick followed by another: breaking every such pair leaves no run of two or more. */
const BACKTICK_PAIR = /`(?=`)/g;
/**
 * `<` opening a closed token without whitespace before `|` or `>` (`<users/1>`,
 * `<https://x|label>`). Both scans stop at the next `<`, so the lookahead is linear overall.
 */
const ANGLE_TOKEN = /<(?=[^\s<>|]*(?:\|[^<>]*)?>)/g;
const FENCE = /^\s*```/;

/** A log frame's text: the headline and every line literal (no code block, link or mention can form). */
export function renderGchatLog(frame: {
  headline?: FrameHeadline;
  lines: readonly FrameLine[];
  link?: FrameLink;
}): string {
  const lines = frame.lines.map((line) => renderLogLine(plainLine(line)));
  const text = (frame.headline ? [renderLogLine(plainHeadline(frame.headline)), ...lines] : lines).join('\n');
  // The run page's "Full log": Chat's own link syntax, built here from a URL turnlog made (never from log text).
  return frame.link ? `${text}\n<${frame.link.url}|${frame.link.label}>` : text;
}

/** Prose (Markdown) in Chat syntax: converted outside code fences, mentions inert everywhere. */
export function renderGchatProse(markdown: string): string {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      const fence = FENCE.test(line);
      const rendered = inFence || fence ? line : renderProseLine(line);
      if (fence) inFence = !inFence;
      return neutralize(rendered);
    })
    .join('\n');
}

/** The message text of a frame: a log or prose as Chat text, a card's plain-text fallback. */
export function renderGchatText(frame: SurfaceFrame): string {
  switch (frame.kind) {
    case 'log':
      return renderGchatLog(frame);
    case 'prose':
      return renderGchatProse(frame.markdown);
    case 'card':
      return renderCardFallbackText(frame.card);
  }
}

/** What `spaces.messages.create` / `patch` carries for a frame. */
export type GchatMessage =
  | { text: string }
  | { text: string; cardsV2: GchatCardV2[] }
  | { cardsV2: GchatCardV2[]; fallbackText: string };

export function renderGchatMessage(frame: SurfaceFrame): GchatMessage {
  if (frame.kind === 'log' && frame.actions !== undefined)
    return { text: renderGchatText(frame), cardsV2: renderLogButtons(frame.actions) };
  if (frame.kind !== 'card') return { text: renderGchatText(frame) };
  return { cardsV2: renderGchatCard(frame.card), fallbackText: neutralize(plainCardText(frame.card)) };
}

/** One turn-log line, shown literally: no code block, link or mention can form. */
export function renderLogLine(line: string): string {
  return neutralize(line)
    .replace(BACKTICK_PAIR, `\`${MENTION_BREAK}`)
    .replace(ANGLE_TOKEN, `<${MENTION_BREAK}`);
}

const INLINE_CODE = /(`[^`]*`)/;
const HEADING = /^#{1,6}\s+(.+)$/;
const BOLD = /\*\*([^*]+)\*\*/g;
const STRIKE = /~~([^~]+)~~/g;

/** Markdown in one prose line → Chat syntax: `**b**` → `*b*`, `~~s~~` → `~s~`, `[t](url)` → `<url|t>`, `# h` → `*h*`. */
function renderProseLine(line: string): string {
  const heading = HEADING.exec(line);
  if (heading) return `*${heading[1]!.replace(BOLD, '$1')}*`;
  // Odd segments are inline code spans: left as written.
  return line
    .split(INLINE_CODE)
    .map((segment, i) =>
      i % 2 === 1 ? segment : safeLinks(segment.replace(BOLD, '*$1*').replace(STRIKE, '~$1~')),
    )
    .join('');
}

export interface GchatCardV2 {
  cardId: string;
  card: Record<string, unknown>;
}

/** A code block: no backtick run can close it early. */
const codeBlock = (command: string): string =>
  `\`\`\`\n${neutralize(command).replace(BACKTICK_PAIR, `\`${MENTION_BREAK}`)}\n\`\`\``;

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A policy card's action ids → the decision its button reports. */
const DECISIONS: Readonly<Record<string, 'approved' | 'rejected'>> = {
  approve: 'approved',
  reject: 'rejected',
};

/** The parameters a button click comes back with: the card (and a policy's decision) and the action id (`approve`, `answer:1`). */
function buttonParameters(card: FrameCard, actionId: string): { key: string; value: string }[] {
  const decision = card.kind === 'policy' ? DECISIONS[actionId] : undefined;
  if (decision !== undefined) {
    return [
      { key: 'requestId', value: card.id },
      { key: 'decision', value: decision },
      { key: 'action', value: actionId },
    ];
  }
  return [
    { key: card.kind === 'policy' ? 'requestId' : 'questionId', value: card.id },
    { key: 'action', value: actionId },
  ];
}

/**
 * A card: the title, the body (a policy's command in a monospace block, a
 * question as text), the id, the outcome once decided, and one button per action.
 */
export function renderGchatCard(card: FrameCard): GchatCardV2[] {
  if (card.id === '') throw new TypeError(`renderGchatCard: the ${card.kind} card has an empty id`);
  const policy = card.kind === 'policy';
  const widgets: Record<string, unknown>[] = [
    {
      textParagraph: policy
        ? { text: codeBlock(card.body), textSyntax: 'MARKDOWN' }
        : { text: escapeHtml(neutralize(card.body)) },
    },
    { decoratedText: { topLabel: policy ? 'Request' : 'Question', text: escapeHtml(card.id) } },
  ];
  if (card.outcome !== undefined)
    widgets.push({ textParagraph: { text: escapeHtml(neutralize(card.outcome)) } });
  if (card.actions.length > 0) {
    widgets.push({
      buttonList: {
        buttons: card.actions.map((action) => ({
          text: action.label,
          onClick: {
            action: { function: POLICY_DECISION_ACTION, parameters: buttonParameters(card, action.id) },
          },
        })),
      },
    });
  }
  return [
    {
      cardId: `${card.kind}-${card.id}`,
      card: {
        header: { title: card.title, subtitle: policy ? 'Approval requested' : 'Question' },
        sections: [{ widgets }],
      },
    },
  ];
}

/**
 * A log's buttons (Stop): a card under the text with one button list; none
 * (an empty `cardsV2`, which removes an earlier one) when it has no buttons.
 */
export function renderLogButtons(actions: readonly FrameAction[]): GchatCardV2[] {
  if (actions.length === 0) return [];
  const buttons = actions.map((action) => ({
    text: action.label,
    ...(action.style === 'danger' ? { type: 'OUTLINED' } : {}),
    onClick: {
      action: { function: POLICY_DECISION_ACTION, parameters: [{ key: 'action', value: action.id }] },
    },
  }));
  return [{ cardId: 'log-actions', card: { sections: [{ widgets: [{ buttonList: { buttons } }] }] } }];
}

/** The card's plain text (Chat's `fallbackText`, shown in notifications). */
function plainCardText(card: FrameCard): string {
  return `${card.kind === 'policy' ? '🔐' : '❓'} ${card.title}: ${card.body}`;
}

/** The text message posted when Chat refuses the card: the same request, without buttons. */
export function renderCardFallbackText(card: FrameCard): string {
  const title = neutralize(card.title);
  const id = neutralize(card.id);
  if (card.kind === 'policy') {
    return `🔐 *${title}*\n${codeBlock(card.body)}\nRequest ${id}: the approve/reject buttons could not be shown.`;
  }
  const options = card.actions.map((action) => neutralize(action.label)).join(' / ');
  return `❓ *${title}*\n${renderGchatProse(card.body)}\nQuestion ${id}${options === '' ? '' : ` (${options})`}: the buttons could not be shown.`;
}
