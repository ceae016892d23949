/**
 * Slack's message limits, from the Block Kit and chat.postMessage reference:
 * - https://docs.slack.dev/block-kit ("up to 50 blocks in each message")
 * - https://docs.slack.dev/reference/block-kit/blocks/section-block (text: 3,000 characters)
 * - https://docs.slack.dev/reference/methods/chat.postMessage (text: 40,000 characters, `msg_too_long` past it)
 * - https://docs.slack.dev/reference/block-kit/blocks/plan-block (≤ 50 task cards)
 * - https://docs.slack.dev/reference/block-kit/block-elements/button-element (label 75, action_id 255, value 2,000)
 * Every text element is held to the section's 3,000: Slack publishes no
 * bound for a rich_text text element, and the lowest published one is safe.
 */
export const SLACK_LIMITS = Object.freeze({
  maxBlocks: 50,
  maxTextElementChars: 3000,
  maxMessageChars: 40_000,
  maxTasks: 50,
  buttonLabelChars: 75,
  actionIdChars: 255,
  buttonValueChars: 2000,
  blockIdChars: 255,
  /** The current command on a live card: clipped so the card stays a glance, not a terminal. */
  activityLines: 6,
  activityChars: 600,
});

/** Characters as Slack counts them: code points, so an emoji is one. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** `text` cut to at most `max` code points, ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (charCount(text) <= max) return text;
  return `${[...text].slice(0, Math.max(0, max - 1)).join('')}…`;
}
