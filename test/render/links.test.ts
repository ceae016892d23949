import { describe, expect, it } from 'vitest';
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
