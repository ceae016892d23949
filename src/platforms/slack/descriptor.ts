/**
 * Slack as a platform descriptor: everything turnlog knows about Slack, read
 * by the platform registry. Numbers from Slack's docs:
 * - limits: https://docs.slack.dev/block-kit, https://docs.slack.dev/reference/methods/chat.postMessage
 * - rates: https://docs.slack.dev/apis/web-api/rate-limits (`chat.update` Tier 3, about 50 a minute
 *   per app per workspace; posting about 1 a second per channel)
 * - mentions: https://docs.slack.dev/messaging/formatting-message-text#mentioning-users
 */
import type {
  IntakeContext,
  PlatformCapabilities,
  PlatformDescriptor,
  SurfaceContext,
} from '../../registry/descriptor.js';
import { verifySlackAuth } from './app.js';
import { type SlackConfig, slackConfigSchema } from './config.js';
import { createSlackIntake } from './intake.js';
import { SLACK_LIMITS } from './limits.js';
import { SLACK_TIER_PER_MINUTE } from './rate-limits.js';
import { createSlackSurface, SLACK_CHANNEL_PATTERN, SLACK_SURFACE_CAPABILITIES } from './surface.js';

export const SLACK_CAPABILITIES: Readonly<PlatformCapabilities> = {
  ...SLACK_SURFACE_CAPABILITIES,
  maxChars: SLACK_LIMITS.maxMessageChars,
  maxTextElementChars: SLACK_LIMITS.maxTextElementChars,
  // An actions block holds 25 elements (https://docs.slack.dev/reference/block-kit/blocks/actions-block).
  maxButtons: 25,
};

export { type SlackConfig, slackConfigSchema };

// Declared before it is typed so `secretKeys` (the keys the config loader resolves as `env:NAME`) can ride
// along for a registry that reads it, without being an excess property for one that does not yet.
const descriptor = {
  id: 'slack',
  displayName: 'Slack',
  spaceIdPattern: SLACK_CHANNEL_PATTERN,
  spaceExample: 'slack:C0123ABCD',
  capabilities: SLACK_CAPABILITIES,
  // chat.update: 50 a minute per app, a fifth (10) kept for terminal frames; 1 s between writes to a channel.
  // Slack limits each method apart: chat.postMessage only per channel (about 1 a second), setStatus and
  // reactions.add each Tier 3 (50 a minute) of their own, so none of them takes a chat.update token.
  budget: {
    // chat.update's tier (rate-limits.ts).
    ratePerMinute: SLACK_TIER_PER_MINUTE[3],
    reserveFraction: 0.2,
    channelSpacingMs: 1000,
    // Each minute counted exactly (a log of the window's chat.update calls): all 45 a minute usable, not 33.
    windowLog: true,
    // A token the bucket would lose (it is full) goes to whoever asks, fair turn or not.
    useSpare: true,
    separateWrites: {
      post: {},
      status: { ratePerMinute: SLACK_TIER_PER_MINUTE[3], spaced: false },
      reaction: { ratePerMinute: SLACK_TIER_PER_MINUTE[3], spaced: false },
    },
  },
  // Slack rate-limits a channel as one, threads included.
  rateChannel: (space) => space,
  // `<!channel>` `<!here>` `<!everyone>` `<!subteam^…>` and `<@U…>` / `<@W…>` (a person, an enterprise user).
  mentionForms: ['<(?=!)', '<(?=!subteam\\^)', '<(?=@[UWB])'],
  secretKeys: ['token', 'signingSecret', 'appToken'],
  configSchema: slackConfigSchema,
  // A token Slack refuses is a start-up error naming platforms.slack.token, not a turn failing later.
  async checkStartup(config: SlackConfig) {
    await verifySlackAuth(config);
  },
  createSurface(config: SlackConfig, context: SurfaceContext) {
    return createSlackSurface({
      token: config.token,
      now: context.now,
      ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
      ...(config.logStyle === undefined ? {} : { logStyle: config.logStyle }),
      ...(context.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: context.requestTimeoutMs }),
    });
  },
  // Events API + interactivity at POST /v1/platforms/slack/events with a signing secret; Socket Mode with an app token.
  createIntake(config: SlackConfig, context: IntakeContext) {
    return createSlackIntake(config, context);
  },
} satisfies PlatformDescriptor<SlackConfig> & { readonly secretKeys: readonly string[] };

export const slackPlatform: PlatformDescriptor<SlackConfig> = descriptor;
