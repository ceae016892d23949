// spec: Slack ids — `ts` "1700000000.000100" unique and increasing; C…/G…/D… channel kinds; one app per token.
import { describe, expect, it } from 'vitest';
import { appForToken, channelKind, createTsSource, TS_PATTERN } from '../../../src/emulators/slack/ids.js';

describe('createTsSource', () => {
  it('formats epoch seconds and six digits of microseconds', () => {
    const ts = createTsSource();
    expect(ts.next(1_700_000_000_100)).toBe('1700000000.100000');
    expect(ts.next(1_700_000_001_000)).toBe('1700000001.000000');
  });

  it('stays unique and increasing when the clock stands still or steps back', () => {
    const ts = createTsSource();
    const issued = [ts.next(5_000), ts.next(5_000), ts.next(4_000), ts.next(5_000)];
    expect(issued).toEqual(['5.000000', '5.000001', '5.000002', '5.000003']);
    expect(issued.every((value) => TS_PATTERN.test(value))).toBe(true);
  });
});

describe('channelKind', () => {
  it('knows public (C), private (G) and DM (D) ids and nothing else', () => {
    expect(channelKind('C0123ABCD')).toBe('public');
    expect(channelKind('G0123ABCD')).toBe('private');
    expect(channelKind('D0123ABCD')).toBe('im');
    expect(channelKind('U0123ABCD')).toBeNull();
    expect(channelKind('c0123abcd')).toBeNull();
    expect(channelKind('#general')).toBeNull();
  });
});

describe('appForToken', () => {
  it('gives each token its own stable bot ids', () => {
    const first = appForToken('xoxb-1');
    expect(appForToken('xoxb-1')).toEqual(first);
    expect(appForToken('xoxb-2').userId).not.toBe(first.userId);
    expect(first.userId).toMatch(/^U[0-9A-F]{10}$/);
    expect(first.botId).toBe(`B${first.userId.slice(1)}`);
  });
});
