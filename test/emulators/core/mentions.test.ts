// spec: docs/architecture.md "User-supplied text can never ping a channel": the emulators detect broad mentions.
import { describe, expect, it } from 'vitest';
import { broadMentionsFor, detectBroadMentions } from '../../../src/emulators/core/index.js';

describe('detectBroadMentions', () => {
  it('finds every platform’s broad mention forms, normalised and deduplicated', () => {
    const text =
      'hey <users/all> and <!channel> <!here|here> <!everyone> @everyone @here <@&123> <!subteam^S9|@ops> <!channel>';
    expect(detectBroadMentions(text)).toEqual([
      '<users/all>',
      '<!channel>',
      '<!here>',
      '<!everyone>',
      '@everyone',
      '@here',
      '<@&123>',
      '<!subteam^S9>',
    ]);
  });

  it('finds nothing in ordinary text, escaped Slack text or a user mention', () => {
    expect(detectBroadMentions('ran npm test: 3 passed, mail me at ops (at) example.com')).toEqual([]);
    expect(detectBroadMentions('&lt;!channel&gt; and <@123456> and <#C1>')).toEqual([]);
  });
});

describe('broadMentionsFor', () => {
  const text = '<users/all> <!channel> @here <@&42>';
  it('keeps only the forms each platform parses from plain text', () => {
    expect(broadMentionsFor('gchat', text)).toEqual(['<users/all>']);
    expect(broadMentionsFor('slack', text)).toEqual(['<!channel>']);
    expect(broadMentionsFor('discord', text)).toEqual(['@here', '<@&42>']);
  });
});
