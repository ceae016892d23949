/**
 * Google Chat rendering (pure): message text in Chat's own syntax, the
 * policy-request card (cardsV2) and its plain-text fallback.
 *
 * The surface only sees text, so `renderGchatText` tells a log from prose by
 * its lines: every turn-log line starts with `• ` (entries and the condenser's
 * markers). A log line is user-supplied content shown verbatim, so what Chat
 * would turn into markup there is broken with an invisible zero-width space:
 * backtick runs (a stray ``` would open a code block swallowing the rest of
 * the log) and closed `<…>` tokens (links with a misleading label,
 * mentions). Single `*`, `_`, `~` stay: at worst they restyle part of one
 * line, and commands keep copying cleanly. Every other line is prose (the
 * final answer): its Markdown becomes Chat syntax outside code. Mentions are
 * neutralized everywhere (`<users/all>` and any `<users/…>` can never ping).
 */
import type { PolicyCard } from '../surfaces/surface.js';
import { safeLinks } from './links.js';
import { MENTION_BREAK, neutralizeBroadMentions } from './mentions.js';

/** The `function` a card button invokes; its parameters carry `requestId` and `decision`. */
export const POLICY_DECISION_ACTION = 'turnlog.policyDecision';

const LOG_LINE = /^• /;
/** A backtick followed by another: breaking every such pair leaves no run of two or more. */
const BACKTICK_PAIR = /`(?=`)/g;
/**
 * `<` opening a closed token without whitespace before `|` or `>` (`<users/1>`,
 * `<https://x|label>`). Both scans stop at the next `<`, so the lookahead is linear overall.
 */
const ANGLE_TOKEN = /<(?=[^\s<>|]*(?:\|[^<>]*)?>)/g;
const FENCE = /^\s*```/;

/** Text for `spaces.messages.create` / `patch`: log lines made literal, prose converted, mentions inert. */
export function renderGchatText(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (LOG_LINE.test(line)) return renderLogLine(line);
      const fence = FENCE.test(line);
      const rendered = inFence || fence ? line : renderProseLine(line);
      if (fence) inFence = !inFence;
      return neutralizeBroadMentions(rendered, 'gchat');
    })
    .join('\n');
}

/** One turn-log line, shown literally: no code block, link or mention can form. */
export function renderLogLine(line: string): string {
  return neutralizeBroadMentions(line, 'gchat')
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

const commandOf = (card: PolicyCard): string => [card.command, ...(card.args ?? [])].join(' ');

/** A command inside a ``` block: no backtick run can close the block early. */
const codeBlock = (command: string): string =>
  `\`\`\`\n${neutralizeBroadMentions(command, 'gchat').replace(BACKTICK_PAIR, `\`${MENTION_BREAK}`)}\n\`\`\``;

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function decisionButton(card: PolicyCard, label: string, decision: 'approved' | 'rejected') {
  return {
    text: label,
    onClick: {
      action: {
        function: POLICY_DECISION_ACTION,
        parameters: [
          { key: 'requestId', value: card.requestId },
          { key: 'decision', value: decision },
        ],
      },
    },
  };
}

/** The approval card: the title, the command in a monospace block, the request id, approve/reject buttons. */
export function renderPolicyCard(card: PolicyCard): GchatCardV2[] {
  if (card.requestId === '') throw new TypeError('renderPolicyCard: the card has an empty requestId');
  return [
    {
      cardId: `policy-${card.requestId}`,
      card: {
        header: { title: card.title, subtitle: 'Approval requested' },
        sections: [
          {
            widgets: [
              { textParagraph: { text: codeBlock(commandOf(card)), textSyntax: 'MARKDOWN' } },
              { decoratedText: { topLabel: 'Request', text: escapeHtml(card.requestId) } },
              {
                buttonList: {
                  buttons: [
                    decisionButton(card, 'Approve', 'approved'),
                    decisionButton(card, 'Reject', 'rejected'),
                  ],
                },
              },
            ],
          },
        ],
      },
    },
  ];
}

/** The text message posted when Chat refuses the card: the same request, without buttons. */
export function renderPolicyFallbackText(card: PolicyCard): string {
  const title = neutralizeBroadMentions(card.title, 'gchat');
  const requestId = neutralizeBroadMentions(card.requestId, 'gchat');
  return `🔐 *${title}*\n${codeBlock(commandOf(card))}\nRequest ${requestId}: the approve/reject buttons could not be shown.`;
}
