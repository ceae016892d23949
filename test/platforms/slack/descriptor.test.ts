// spec: issue 11 item 1 / issue 10 item 1 — Slack as one platform descriptor: config schema with env: secrets,
// capabilities from Slack's limits, budget defaults (50 chat.update a minute, 10 kept for terminal frames,
// 1 s per channel), the space id pattern, mention forms, and a surface built from config.
import { afterEach, describe, expect, it } from 'vitest';
import { resolveBudgetConfig } from '../../../src/budget/config.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { slackPlatform } from '../../../src/platforms/slack/descriptor.js';
import { postReq, prose } from './harness.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('slackPlatform', () => {
  it('takes {apiUrl?, token, signingSecret?, appToken?, logStyle?} with env: secrets', () => {
    const parsed = slackPlatform.configSchema.parse({
      apiUrl: 'http://127.0.0.1:9999',
      token: 'env:SLACK_BOT_TOKEN',
      signingSecret: 'env:SLACK_SIGNING_SECRET',
      appToken: 'xapp-1',
      logStyle: 'plan',
    });
    expect(parsed).toMatchObject({ token: 'env:SLACK_BOT_TOKEN', logStyle: 'plan' });
  });

  it('refuses a config without a token, a bad env reference, an unknown key or style — naming the field', () => {
    const problems = (input: unknown) => {
      const result = slackPlatform.configSchema.safeParse(input);
      return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.') || issue.message);
    };
    expect(problems({})).toEqual(['token']);
    expect(problems({ token: 'env:1BAD' })).toEqual(['token']);
    expect(problems({ token: 't', logStyle: 'fancy' })).toEqual(['logStyle']);
    expect(problems({ token: 't', apiUrl: 'ftp://x' })).toEqual(['apiUrl']);
    expect(problems({ token: 't', extra: 1 })).toEqual(['Unrecognized key: "extra"']);
  });

  it('declares Slack’s limits and capabilities', () => {
    expect(slackPlatform.capabilities).toEqual({
      maxChars: 40_000,
      maxTextElementChars: 3000,
      silentPosts: false,
      idempotentCreate: false,
      ackCard: true,
      maxButtons: 25,
    });
  });

  it('budgets 50 chat.update a minute with 10 kept for terminal frames and 1 s between writes to a channel', () => {
    const budget = resolveBudgetConfig({ platform: slackPlatform.id, ...slackPlatform.budget });
    expect([budget.allowance, budget.reserve, budget.channelSpacingMs]).toEqual([50, 10, 1000]);
    expect(slackPlatform.rateChannel('slack:C0123', '1700000000.000100')).toBe('slack:C0123');
  });

  it('matches channel, private channel and DM ids, nothing else', () => {
    for (const id of ['C0123ABCD', 'G0PRIVATE1', 'D0DIRECT01'])
      expect(slackPlatform.spaceIdPattern.test(id)).toBe(true);
    for (const id of ['general', 'c0123abcd', 'U0123ABCD', 'C', ''])
      expect(slackPlatform.spaceIdPattern.test(id)).toBe(false);
    expect(slackPlatform.spaceExample).toMatch(/^slack:/);
    expect(slackPlatform.spaceIdPattern.test(slackPlatform.spaceExample.slice('slack:'.length))).toBe(true);
  });

  it('names mention forms that break <!…>, <!subteam^…> and <@U…> but leave prose alone', () => {
    const pattern = new RegExp(slackPlatform.mentionForms.join('|'), 'g');
    const broken = '<!channel> <!subteam^S1|@team> <@U0123ABCD> a < b'.replace(pattern, (o) => `${o}\u200B`);
    expect(broken).toBe('<\u200B!channel> <\u200B!subteam^S1|@team> <\u200B@U0123ABCD> a < b');
  });

  it('builds a surface from its config that posts to the configured API', async () => {
    const emulator = await startSlackEmulator();
    close = () => emulator.close();
    const surface = slackPlatform.createSurface(
      slackPlatform.configSchema.parse({ apiUrl: emulator.url, token: 'xoxb-descriptor' }),
      { now: () => 0 },
    );
    expect(surface.platform).toBe('slack');
    await surface.post(postReq({ space: 'slack:C0DESCRIBE', frame: prose('hello') }));
    expect(emulator.state.messages('C0DESCRIBE').map((m) => m.text)).toEqual(['hello']);
  });
});
