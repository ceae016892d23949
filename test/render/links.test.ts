import { describe, expect, it } from 'vitest';
import { proseMarkdown } from '../../src/platforms/discord/render.js';
import { markdownToMrkdwn } from '../../src/platforms/slack/mrkdwn.js';
import { labelMatchesTarget, safeLinks } from '../../src/render/links.js';

const B = '\u200B';

describe('safeLinks', () => {
  it('turns an honest Markdown link into <url|label>', () => {
    expect(safeLinks('see [the docs](https://example.com/docs) now')).toBe(
      'see <https://example.com/docs|the docs> now',
    );
  });

  it('shows both addresses when a Markdown label is an address on another host', () => {
    expect(safeLinks('[https://accounts.google.com](https://evil.example/login)')).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(safeLinks('[accounts.google.com/signin](https://evil.example)')).toBe(
      'accounts.google.com/signin (https://evil.example)',
    );
  });

  it('judges a Chat/Slack <url|label> in the text the same way', () => {
    expect(safeLinks('<https://evil.example/login|https://accounts.google.com>')).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(safeLinks('<https://docs.example.com/a|docs.example.com/a>')).toBe(
      '<https://docs.example.com/a|docs.example.com/a>',
    );
    expect(safeLinks('<https://example.com|click here>')).toBe('<https://example.com|click here>');
  });

  it('never links javascript:, data: or file: targets', () => {
    expect(safeLinks('<javascript:alert(1)|click>')).toBe('click (javascript:alert(1))');
    expect(safeLinks('<javascript:alert(1)>')).toBe(`<${B}javascript:alert(1)>`);
    expect(safeLinks('[click](javascript:alert(1))')).not.toMatch(/<javascript/);
    expect(safeLinks('[x](data:text/html;base64,AAAA)')).toBe('x (data:text/html;base64,AAAA)');
    expect(safeLinks('<file:///etc/passwd|report>')).toBe('report (file:///etc/passwd)');
  });

  it('leaves mentions and plain text to the other rules', () => {
    expect(safeLinks('<users/123> and <@U123> and a < b > c')).toBe('<users/123> and <@U123> and a < b > c');
  });

  it('compares hosts case-insensitively', () => {
    expect(labelMatchesTarget('HTTPS://Example.COM/x', new URL('https://example.com/y'))).toBe(true);
    expect(labelMatchesTarget('example.com.evil.io', new URL('https://example.com'))).toBe(false);
  });
});

/** issue 9 item 9 (audit): the same judgement on Slack and Discord, whose renderers did not use it. */
describe('Slack answers and job headers (markdownToMrkdwn): a link never shows one address and leads to another', () => {
  it('keeps an honest link and shows both addresses for a dishonest one', () => {
    expect(markdownToMrkdwn('see [the docs](https://example.com/docs)')).toBe(
      'see <https://example.com/docs|the docs>',
    );
    expect(markdownToMrkdwn('[https://docs.example.com/a](https://docs.example.com/a)')).toBe(
      '<https://docs.example.com/a|https://docs.example.com/a>',
    );
    for (const [markdown, shown] of [
      [
        '[https://accounts.google.com](https://evil.example)',
        'https://accounts.google.com (https://evil.example)',
      ],
      ['[accounts.google.com](https://evil.example)', 'accounts.google.com (https://evil.example)'],
      [
        '[https://accounts.google.com](https://accounts.google.com@evil.example)',
        'https://accounts.google.com (https://accounts.google.com@evil.example)',
      ],
      [
        '[https://\u0430ccounts.google.com](https://evil.example)',
        'https://\u0430ccounts.google.com (https://evil.example)',
      ],
    ]) {
      const out = markdownToMrkdwn(markdown as string);
      expect(out, markdown).toBe(shown);
      expect(out).not.toContain('<');
    }
  });
});

describe('Discord answers (proseMarkdown): no masked link survives, however it is written', () => {
  it('shows the real target of a masked link with nested brackets, a title or an angle-bracket target', () => {
    for (const markdown of [
      '[[https://accounts.google.com]](https://evil.example)',
      '[https://accounts.google.com](https://evil.example "Google")',
      "[https://accounts.google.com](https://evil.example 'Google')",
      '[https://accounts.google.com](<https://evil.example>)',
      '[a [b] c](https://evil.example)',
    ]) {
      const out = proseMarkdown(markdown);
      // Discord's parser (simple-markdown) reads `[label](target …)` with nested brackets and titles: no `](` may be left.
      expect(out, markdown).not.toMatch(/\]\(/);
      expect(out, markdown).toContain('evil.example');
    }
  });
});
