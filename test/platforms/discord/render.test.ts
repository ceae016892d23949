// spec: issue 12 item 4 — the log as Components V2: a Container coloured by state, a headline with the
// elapsed time, Text Displays with the condensed log within 4,000 chars (40 components); logStyle text →
// content ≤ 2,000; cards with buttons; prose as content. Hostile text never forms a mention or a masked link.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  breakMentions,
  charLength,
  componentCount,
  DISCORD_LIMITS,
  DiscordRenderError,
  formatElapsed,
  literal,
  renderFrame,
  STATE_COLORS,
  textDisplays,
  threadName,
} from '../../../src/platforms/discord/render.js';
import type { FrameLine, SurfaceFrame } from '../../../src/surfaces/frame.js';

const V2 = 1 << 15;

const line = (text: string, extra: Partial<FrameLine> = {}): FrameLine => ({
  kind: 'tool',
  status: 'ok',
  depth: 0,
  time: '12:00:01',
  text,
  ...extra,
});

const logFrame = (
  lines: FrameLine[],
  state: 'running' | 'done' | 'failed' | 'stopped' = 'running',
): SurfaceFrame => ({
  kind: 'log',
  headline: { state, title: 'Deploy the app', elapsedMs: 184_000, now: 'running Bash (12s)' },
  lines,
});

/** Every mention token Discord would parse (and show as a pill or ping). */
const LIVE_MENTION = /<@!?\d+>|<@&\d+>|<#\d+>|@everyone|@here/i;
/** A masked link `[label](url)` that markdown would turn into a link. */
const MASKED_LINK = /(?<!\\)\[[^\]]*(?<!\\)\]\((?!<)/;

describe('renderFrame: a log frame as Components V2', () => {
  it('is one Container coloured by state, with the headline, a separator and the lines', () => {
    const body = renderFrame(
      logFrame([line('Bash: npm test'), line('Read: src/a.ts', { status: 'pending', depth: 1 })]),
      { logStyle: 'components' },
    );
    expect(body.flags).toBe(V2);
    expect(body.content).toBeNull();
    expect(body.components).toHaveLength(1);
    const [container] = body.components as [
      { type: number; accent_color: number; components: { type: number }[] },
    ];
    expect(container.type).toBe(17);
    expect(container.accent_color).toBe(STATE_COLORS.running);
    expect(container.components.map((c) => c.type)).toEqual([10, 14, 10]);
    const [headline, lines] = textDisplays(body.components);
    expect(headline).toBe('**⏳ Running** · Deploy the app · 3m 04s\n-# running Bash \\(12s\\)');
    expect(lines).toBe('`12:00:01` ✅ Bash: npm test\n`12:00:01` \u2003↳ ⏳ Read: src/a.ts');
  });

  it('shows each state in its own colour', () => {
    const colours = (['running', 'done', 'failed', 'stopped'] as const).map(
      (state) =>
        (
          renderFrame(logFrame([], state), { logStyle: 'components' }).components[0] as {
            accent_color: number;
          }
        ).accent_color,
    );
    expect(new Set(colours).size).toBe(4);
  });

  it('keeps a huge frame within 4,000 chars and 40 components, newest lines kept, saying how many were left out', () => {
    const lines = Array.from({ length: 600 }, (_, i) => line(`step ${i} ${'x'.repeat(90)}`));
    const body = renderFrame(logFrame(lines), { logStyle: 'components' });
    const text = textDisplays(body.components).join('');
    expect(charLength(text)).toBeLessThanOrEqual(DISCORD_LIMITS.componentsV2TextChars);
    expect(componentCount(body.components)).toBeLessThanOrEqual(DISCORD_LIMITS.componentsV2Count);
    expect(text).toContain('step 599 ');
    expect(text).not.toContain('step 0 ');
    expect(text).toMatch(/… \d+ earlier lines not shown/);
  });

  it('renders an empty log without a headline as a Container that still says something', () => {
    const body = renderFrame({ kind: 'log', lines: [] }, { logStyle: 'components' });
    expect(textDisplays(body.components)).toEqual(['-# (no activity yet)']);
  });
});

describe('renderFrame: logStyle text', () => {
  it('is plain content within 2,000 chars, no flags', () => {
    const lines = Array.from({ length: 200 }, (_, i) => line(`step ${i} ${'y'.repeat(40)}`));
    const body = renderFrame(logFrame(lines, 'done'), { logStyle: 'text' });
    expect(body.flags).toBe(0);
    expect(body.components).toEqual([]);
    expect(charLength(body.content ?? '')).toBeLessThanOrEqual(DISCORD_LIMITS.contentChars);
    expect(body.content).toMatch(/^\*\*✅ Done\*\* · Deploy the app · 3m 04s\n/);
    expect(body.content).toContain('step 199 ');
  });
});

describe('renderFrame: cards and prose', () => {
  it('a policy card is a Container with the command in a code block and buttons keyed by action id', () => {
    const body = renderFrame(
      {
        kind: 'card',
        card: {
          kind: 'policy',
          id: 'r1',
          title: 'Run a command?',
          body: 'rm -rf /tmp/x',
          actions: [
            { id: 'approve', label: 'Approve', style: 'primary' },
            { id: 'reject', label: 'Reject', style: 'danger' },
          ],
        },
      },
      { logStyle: 'components' },
    );
    expect(body.flags).toBe(V2);
    const [container] = body.components as unknown as [
      { components: { type: number; components?: unknown[] }[] },
    ];
    expect(textDisplays(body.components)).toEqual(['🔐 **Run a command?**', '```\nrm -rf /tmp/x\n```']);
    const row = container.components.at(-1)!;
    expect(row.type).toBe(1);
    expect(row.components).toEqual([
      { type: 2, style: 1, label: 'Approve', custom_id: 'approve' },
      { type: 2, style: 4, label: 'Reject', custom_id: 'reject' },
    ]);
  });

  it('a decided card shows the outcome and no buttons; a fence in the command cannot close the code block', () => {
    const body = renderFrame(
      {
        kind: 'card',
        card: {
          kind: 'policy',
          id: 'r1',
          title: 'Run?',
          body: 'echo ```\n@everyone',
          actions: [],
          outcome: '✅ approved by Alice',
        },
      },
      { logStyle: 'components' },
    );
    const texts = textDisplays(body.components);
    expect(texts[1]).not.toMatch(/```\n@everyone/);
    expect(texts[1]!.match(/```/g)).toHaveLength(2);
    expect(texts[2]).toBe('✅ approved by Alice');
    expect(JSON.stringify(body.components)).not.toContain('"type":1,');
  });

  it('refuses cards Discord would refuse: repeated or overlong action ids, more than 25 buttons', () => {
    const card = (actions: { id: string; label: string }[]): SurfaceFrame => ({
      kind: 'card',
      card: { kind: 'question', id: 'q', title: 'Pick', body: 'Which?', actions },
    });
    expect(() =>
      renderFrame(
        card([
          { id: 'a', label: 'A' },
          { id: 'a', label: 'B' },
        ]),
        { logStyle: 'components' },
      ),
    ).toThrow(DiscordRenderError);
    expect(() =>
      renderFrame(card([{ id: 'x'.repeat(101), label: 'A' }]), { logStyle: 'components' }),
    ).toThrow(/1–100/);
    const many = Array.from({ length: 26 }, (_, i) => ({ id: `o${i}`, label: `O${i}` }));
    expect(() => renderFrame(card(many), { logStyle: 'components' })).toThrow(/at most 25 buttons/);
    const rows = renderFrame(card(many.slice(0, 7)), { logStyle: 'components' }).components[0] as {
      components: { type: number }[];
    };
    expect(rows.components.filter((c) => c.type === 1)).toHaveLength(2);
  });

  it('prose is content with its markdown, masked links showing their target and mentions broken', () => {
    const body = renderFrame(
      {
        kind: 'prose',
        markdown: '**Done.** See [the docs](https://evil.example/x) @everyone <@123456789012345678>',
      },
      { logStyle: 'components' },
    );
    expect(body).toMatchObject({ flags: 0, components: [] });
    expect(body.content).toContain('**Done.**');
    expect(body.content).toContain('the docs (<https://evil.example/x>)');
    expect(body.content).not.toMatch(LIVE_MENTION);
  });

  it('prose over 2,000 chars becomes a Text Display; over 4,000 it is cut, saying so', () => {
    const long = renderFrame({ kind: 'prose', markdown: 'a'.repeat(3000) }, { logStyle: 'text' });
    expect(long.flags).toBe(V2);
    expect(textDisplays(long.components)[0]).toHaveLength(3000);
    const huge = renderFrame({ kind: 'prose', markdown: 'b'.repeat(9000) }, { logStyle: 'text' });
    const [text] = textDisplays(huge.components);
    expect(charLength(text!)).toBe(4000);
    expect(text).toMatch(/answer cut at 4,000 characters\)$/);
  });
});

describe('hostile text', () => {
  const hostile = [
    '@everyone deploy now',
    '@here look',
    'ping <@123456789012345678> and <@!123456789012345678>',
    'role <@&987654321098765432>',
    'channel <#123456789012345678>',
    '[click me](https://evil.example/steal)',
    '# Heading\n> quote\n- list',
  ].join(' ');

  it('in log lines, titles and now: no mention, no masked link, no heading', () => {
    const frame: SurfaceFrame = {
      kind: 'log',
      headline: { state: 'running', title: hostile, elapsedMs: 1000, now: hostile },
      lines: [line(hostile), line(hostile, { kind: 'marker' })],
    };
    for (const logStyle of ['components', 'text'] as const) {
      const body = renderFrame(frame, { logStyle });
      const text = [body.content ?? '', ...textDisplays(body.components)].join('\n');
      expect(text).not.toMatch(LIVE_MENTION);
      expect(text).not.toMatch(MASKED_LINK);
      expect(text).not.toMatch(/^#\s/m);
    }
  });

  it('in a button label: no mention', () => {
    const body = renderFrame(
      {
        kind: 'card',
        card: {
          kind: 'question',
          id: 'q',
          title: 't',
          body: 'b',
          actions: [{ id: 'a', label: '@everyone <@&1234567890123456>' }],
        },
      },
      { logStyle: 'components' },
    );
    expect(JSON.stringify(body.components)).not.toMatch(LIVE_MENTION);
  });

  it('literal(): for any text, no live mention or masked link survives, and only invisible characters and backslashes are added', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(
              '@everyone',
              '@here',
              '<@',
              '<@!',
              '<@&',
              '<#',
              '[',
              ']',
              '(',
              ')',
              '`',
              '*',
              '_',
              '\\',
              '\n#',
              '1234567890123456789',
              '>',
              'https://x.y',
            ),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 30 },
        ),
        (parts) => {
          const text = parts.join('');
          const shown = literal(text);
          expect(shown).not.toMatch(LIVE_MENTION);
          expect(shown).not.toMatch(MASKED_LINK);
          expect(shown.replace(/\u200B/g, '').replace(/\\(.)/gs, '$1')).toBe(text);
        },
      ),
    );
  });
});

describe('helpers', () => {
  it('breaks role mentions and @here in any case', () => {
    expect(breakMentions('<@&1> @HERE')).toBe('<\u200B@&1> @\u200BHERE');
  });

  it('formats the elapsed time as a person reads it', () => {
    expect([0, 45_000, 184_000, 3_720_000].map(formatElapsed)).toEqual(['0s', '45s', '3m 04s', '1h 02m']);
  });

  it('names a thread from a title: one line, 1–100 chars', () => {
    expect(threadName(undefined)).toBe('activity log');
    expect(threadName('  fix\n the   build ')).toBe('fix the build');
    expect(charLength(threadName('t'.repeat(300)))).toBe(100);
  });
});
