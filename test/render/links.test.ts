// spec: issue 9 item 9 (links never spoof) and issue 22.7 (the label variants that still did).
import { describe, expect, it } from 'vitest';
import { proseMarkdown } from '../../src/platforms/discord/render.js';
import { renderGchatProse } from '../../src/platforms/gchat/render.js';
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

/**
 * Issue 22.7: on Slack and Google Chat a label that looks like one address linked to another in 4 of 13
 * variants (a trailing dot, an extra word, homoglyphs, a fullwidth dot). Rule: a label that looks like a
 * host (after NFKC and confusable folding, a host-like token anywhere in it) must be the link's host, or
 * the link shows its real URL — on every platform's renderer.
 */
describe('issue 22.7: label variants that look like another address', () => {
  const EVIL = 'https://evil.example/x';
  /** Each label, and the target it honestly names. */
  const VARIANTS: [label: string, honest: string][] = [
    ['https://good.example', 'https://good.example/x'],
    ['good.example', 'https://good.example/x'],
    ['good.example/login', 'https://good.example/login'],
    ['GOOD.EXAMPLE', 'https://good.example/x'],
    ['http://good.example:8080/a', 'https://good.example/a'],
    ['good.example.', 'https://good.example/x'],
    ['good.example login', 'https://good.example/x'],
    ['g\u043e\u043egle.com', 'https://google.com/'],
    ['good\u3002example', 'https://good.example/x'],
    ['\uff47\uff4f\uff4f\uff44.example', 'https://good.example/x'],
    ['good\u200b.example', 'https://good.example/x'],
    ['Sign in at good.example!', 'https://good.example/x'],
    ['me@good.example', 'https://good.example/x'],
  ];
  const renderers: [platform: string, render: (markdown: string) => string][] = [
    ['gchat', renderGchatProse],
    ['slack', markdownToMrkdwn],
    ['discord', proseMarkdown],
  ];

  it('has 13 variants', () => expect(VARIANTS).toHaveLength(13));

  for (const [platform, render] of renderers) {
    it(`${platform}: shows the real URL of every variant that links elsewhere`, () => {
      for (const [label] of VARIANTS) {
        for (const target of [EVIL, 'https://good.example.evil.io/', 'https://good.example@evil.example/']) {
          const out = render(`see [${label}](${target}) now`);
          // No masked link: neither `<url|label>` (Chat, Slack) nor `](` (Discord).
          expect(out, `${label} → ${target}`).not.toMatch(/<https?:[^>]*\|/);
          expect(out, `${label} → ${target}`).not.toMatch(/\]\(/);
          expect(out, `${label} → ${target}`).toContain(new URL(target).hostname);
        }
      }
    });
  }

  it('keeps the link when the label names its own host (Chat, Slack)', () => {
    for (const [label, honest] of VARIANTS) {
      expect(safeLinks(`[${label}](${honest})`), label).toBe(`<${honest}|${label}>`);
      expect(labelMatchesTarget(label, new URL(honest)), label).toBe(true);
    }
  });

  it('keeps ordinary labels and file names in a path as links', () => {
    for (const label of ['the docs', 'src/render/links.ts', 'see line 42', 'v1.2']) {
      expect(labelMatchesTarget(label, new URL('https://github.com/o/r/blob/main/x')), label).toBe(true);
    }
  });
});
