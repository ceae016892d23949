// spec: issue 11 item 2 — the Slack card: a context headline (spinner, title, clock, quiet suffix), a rich_text
// body (never section) with literal log lines and the command in flight, terminal glyphs, the 👀 ack, cards with
// buttons, prose as escaped mrkdwn, Slack's limits, the text-only fallback and the plan style.
import { describe, expect, it } from 'vitest';
import { parseBlocksArg } from '../../../src/emulators/slack/blocks.js';
import { slackBroadMentions } from '../../../src/emulators/slack/mentions.js';
import { SLACK_LIMITS } from '../../../src/platforms/slack/limits.js';
import {
  blocksCharCount,
  clipActivity,
  formatElapsed,
  renderAck,
  renderFrame,
  renderTextOnly,
  type SlackMessage,
  SPINNER,
} from '../../../src/platforms/slack/render.js';
import type { FrameLine, FrameState, SurfaceFrame } from '../../../src/surfaces/frame.js';

const line = (text: string, extra: Partial<FrameLine> = {}): FrameLine => ({
  kind: 'tool',
  depth: 0,
  time: '12:00:01',
  text,
  ...extra,
});

const live = (lines: FrameLine[], now?: string): SurfaceFrame => ({
  kind: 'log',
  headline: { state: 'running', title: 'Fix the build', elapsedMs: 184_000, ...(now ? { now } : {}) },
  lines,
});

/** What Slack would accept (the emulator's Block Kit check) and which mentions would fire. */
function slackVerdict(message: SlackMessage) {
  const parsed = message.blocks ? parseBlocksArg(message.blocks) : { kind: 'absent' as const };
  const blocks = parsed.kind === 'blocks' ? parsed.blocks : undefined;
  return {
    blocks: parsed.kind,
    mentions: slackBroadMentions({ text: message.text, blocks, linkNames: false }),
  };
}

const HOSTILE = [
  '<!channel> deploy now',
  '<!here|here> and <!everyone>',
  'ping <@U0123ABCD> and <!subteam^S0123|@oncall>',
  '@here @everyone @channel',
  '<https://evil.example|click me> & <mailto:x@y.z>',
  'token xoxb-123456789012-abcdefabcdef &amp; <>',
].join(' ');

describe('formatElapsed', () => {
  it('prints a floored clock: seconds, then minutes and zero-padded seconds, then hours', () => {
    expect(formatElapsed(0)).toBe('0s');
    expect(formatElapsed(42_999)).toBe('42s');
    expect(formatElapsed(184_000)).toBe('3m 04s');
    expect(formatElapsed(3_723_000)).toBe('1h 02m 03s');
  });
});

describe('renderFrame — live log card', () => {
  it('puts the headline in a context block (the same line as the text fallback) and the log in rich_text', () => {
    const message = renderFrame(
      live([line('✓ Read src/a.ts', { status: 'ok' })], 'thinking (22s since last tool)'),
    );
    expect(message.blocks?.map((block) => block.type)).toEqual(['context', 'rich_text']);
    const context = message.blocks?.[0] as { elements: { type: string; text: string }[] };
    expect(context.elements[0]).toEqual({ type: 'mrkdwn', text: message.text });
    expect(message.text).toBe(`${SPINNER[0]} *Fix the build* · 3m 04s — thinking (22s since last tool)`);
    expect(message.blocks?.some((block) => block.type === 'section')).toBe(false);
    expect(slackVerdict(message).blocks).toBe('blocks');
  });

  it('moves the spinner one glyph per live frame', () => {
    const glyphs = [0, 1, 2, 10].map(
      (step) => [...renderFrame(live([line('x')]), { spinnerStep: step }).text][0],
    );
    expect(glyphs).toEqual([SPINNER[0], SPINNER[1], SPINNER[2], SPINNER[0]]);
  });

  it('shows the running tool suffix and the command in flight as preformatted text', () => {
    const command = Array.from({ length: 10 }, (_, i) => `echo line ${i}`).join('\n');
    const message = renderFrame(
      live([line('Read a.ts', { status: 'ok' }), line(command, { status: 'pending' })], 'running Bash (31s)'),
    );
    expect(message.text).toContain(' — running Bash (31s)');
    const body = message.blocks?.[1] as { elements: { type: string; elements: { text: string }[] }[] };
    expect(body.elements.map((element) => element.type)).toEqual([
      'rich_text_section',
      'rich_text_preformatted',
    ]);
    const activity = body.elements[1]!.elements[0]!.text;
    expect(activity.split('\n')).toHaveLength(7);
    expect(activity.endsWith('…')).toBe(true);
    expect(activity.startsWith('echo line 0\n')).toBe(true);
  });

  it('clips the activity to 600 characters', () => {
    expect([...clipActivity('y'.repeat(5000))]).toHaveLength(600);
    expect(clipActivity('short')).toBe('short');
  });

  it('marks each line by its status, indents subagent lines and keeps the time', () => {
    const message = renderFrame(
      live([
        line('Read a.ts', { status: 'ok' }),
        line('npm test', { status: 'failed' }),
        line('researcher', { kind: 'subagent', depth: 1, status: 'pending' }),
        line('…log continues', { kind: 'marker', time: '' }),
      ]),
    );
    const body = message.blocks?.[1] as { elements: { elements: { text: string }[] }[] };
    expect(body.elements[0]!.elements.map((element) => element.text)).toEqual([
      '12:00:01  ✓ Read a.ts\n',
      '12:00:01  ✗ npm test\n',
      '12:00:01    → researcher\n',
      '…log continues',
    ]);
  });

  it('is the 👀 ack card while the log is still empty', () => {
    const ack = renderAck('Fix the build');
    expect(ack.text).toBe('👀 *Fix the build* · 0s');
    expect(ack.blocks?.map((block) => block.type)).toEqual(['context']);
    expect(slackVerdict(ack).blocks).toBe('blocks');
  });

  it('ends with the outcome glyph and the total time, without the activity or a suffix', () => {
    const ended = (state: Exclude<FrameState, 'running'>) =>
      renderFrame({
        kind: 'log',
        headline: { state, title: 'Fix the build', elapsedMs: 65_000 },
        lines: [line('npm test', { status: 'pending' })],
      });
    expect(ended('done').text).toBe('✅ *Fix the build* · 1m 05s');
    expect(ended('failed').text).toBe('❌ *Fix the build* · 1m 05s');
    expect(ended('stopped').text).toBe('⏹ *Fix the build* · 1m 05s');
    const body = ended('done').blocks?.[1] as { elements: { type: string }[] };
    expect(body.elements.map((element) => element.type)).toEqual(['rich_text_section']);
    expect(ended('blocked').text).toBe('⛔ *Fix the build* · 1m 05s');
    expect(ended('degraded').text).toBe('⚠️ *Fix the build* · 1m 05s');
  });
});

describe('renderFrame — user text never pings', () => {
  it('keeps hostile log lines literal and escapes the headline', () => {
    const message = renderFrame({
      kind: 'log',
      headline: { state: 'running', title: HOSTILE, elapsedMs: 1000, now: `running ${HOSTILE}` },
      lines: [line(HOSTILE, { status: 'ok' }), line(HOSTILE, { status: 'pending' })],
    });
    expect(slackVerdict(message)).toEqual({ blocks: 'blocks', mentions: [] });
    expect(message.text).not.toMatch(/<[!@#]|<https?:/);
    expect(message.text).toContain('&lt;!channel&gt;');
    const body = JSON.stringify(message.blocks?.[1]);
    expect(body).toContain('<!channel> deploy now');
    expect(body).not.toMatch(/"type":"(broadcast|user|usergroup|link)"/);
  });

  it('escapes prose and cards, so no mention, link or secret-looking text becomes markup', () => {
    const prose = renderFrame({
      kind: 'prose',
      markdown: `**Done.** ${HOSTILE}\n[docs](https://example.com/a?b=1&c=2)`,
    });
    expect(prose.blocks).toBeUndefined();
    expect(slackVerdict(prose).mentions).toEqual([]);
    expect(prose.text).toContain('*Done.*');
    expect(prose.text).toContain('<https://example.com/a?b=1&amp;c=2|docs>');
    // The only `<` left is the link built from the Markdown link syntax.
    expect(prose.text.match(/</g)).toHaveLength(1);
    expect(prose.text).toContain('@\u200Bhere @\u200Beveryone @\u200Bchannel');

    const card = renderFrame({
      kind: 'card',
      card: {
        kind: 'question',
        id: 'q1',
        title: HOSTILE,
        body: HOSTILE,
        actions: [{ id: 'yes', label: '<!channel> yes' }],
        outcome: `answered by ${HOSTILE}`,
      },
    });
    expect(slackVerdict(card)).toEqual({ blocks: 'blocks', mentions: [] });
  });

  it('turns only http(s) Markdown links into Slack links', () => {
    const prose = renderFrame({ kind: 'prose', markdown: '[x](javascript:alert(1)) [y](!channel)' });
    expect(prose.text).not.toContain('<');
  });
});

describe('renderFrame — empty text', () => {
  it('leaves out lines, activity and card bodies with nothing to show (Slack refuses an empty text element)', () => {
    const log = renderFrame(
      live([
        line('', { kind: 'marker', time: '' }),
        line('Read a.ts', { status: 'ok' }),
        line('', { status: 'pending' }),
      ]),
    );
    const body = log.blocks?.[1] as { elements: { type: string; elements: { text: string }[] }[] };
    expect(body.elements.map((element) => element.type)).toEqual(['rich_text_section']);
    expect(body.elements[0]!.elements.map((element) => element.text)).toEqual([
      '12:00:01  ✓ Read a.ts\n',
      '12:00:01  → ',
    ]);
    const card = renderFrame({
      kind: 'card',
      card: { kind: 'question', id: 'q', title: 'Go?', body: '', actions: [] },
    });
    expect(JSON.stringify(card.blocks)).not.toContain('"text":""');
  });
});

describe('renderFrame — cards', () => {
  it('renders a policy card with the command preformatted and buttons carrying action ids', () => {
    const message = renderFrame({
      kind: 'card',
      card: {
        kind: 'policy',
        id: 'req-1',
        title: 'Run a command?',
        body: 'rm -rf build',
        actions: [
          { id: 'approve', label: 'Approve', style: 'primary' },
          { id: 'reject', label: 'Reject', style: 'danger' },
        ],
      },
    });
    expect(message.blocks?.map((block) => block.type)).toEqual(['rich_text', 'actions']);
    expect(message.blocks?.[1]).toEqual({
      type: 'actions',
      block_id: 'turnlog:policy:req-1',
      elements: [
        expect.objectContaining({ type: 'button', action_id: 'approve', value: 'approve', style: 'primary' }),
        expect.objectContaining({ type: 'button', action_id: 'reject', value: 'reject', style: 'danger' }),
      ],
    });
    expect(JSON.stringify(message.blocks?.[0])).toContain('"type":"rich_text_preformatted"');
    expect(slackVerdict(message).blocks).toBe('blocks');
  });

  it('shows the outcome and no buttons once decided', () => {
    const message = renderFrame({
      kind: 'card',
      card: {
        kind: 'policy',
        id: 'r',
        title: 'Run?',
        body: 'ls',
        actions: [],
        outcome: '✅ approved by Alice',
      },
    });
    expect(message.blocks?.map((block) => block.type)).toEqual(['rich_text', 'context']);
    expect(message.text).toBe('🔐 Run? — ✅ approved by Alice');
  });
});

describe('renderFrame — Slack limits', () => {
  const huge = live(
    Array.from({ length: 400 }, (_, i) => line(`${i} ${'x'.repeat(5000)}`, { status: 'ok' })),
  );

  it('clips every text element to 3,000 and the message to 40,000, dropping the oldest lines behind a marker', () => {
    const message = renderFrame(huge);
    expect(slackVerdict(message).blocks).toBe('blocks');
    expect(message.blocks!.length).toBeLessThanOrEqual(SLACK_LIMITS.maxBlocks);
    expect(blocksCharCount(message.blocks!)).toBeLessThanOrEqual(SLACK_LIMITS.maxMessageChars);
    const texts = JSON.stringify(message.blocks);
    expect(texts).toMatch(/… \d+ earlier lines not shown/);
    expect(texts).toContain('"12:00:01  ✓ 399 x');
    expect(texts).not.toContain('"12:00:01  ✓ 0 x');
  });

  it('the text-only fallback keeps the newest lines within 40,000 characters', () => {
    const message = renderTextOnly(huge);
    expect(message.blocks).toBeUndefined();
    expect([...message.text].length).toBeLessThanOrEqual(SLACK_LIMITS.maxMessageChars);
    expect(message.text).toContain('399 x');
    expect(message.text).toMatch(/^⠋ \*Fix the build\* · 3m 04s\n… \d+ earlier lines not shown\n/);
  });

  it('the text-only fallback of a card lists its options and never pings', () => {
    const message = renderTextOnly({
      kind: 'card',
      card: { kind: 'question', id: 'q', title: 'Pick', body: HOSTILE, actions: [{ id: 'a', label: 'A' }] },
    });
    expect(message.text).toContain('Options: A');
    expect(slackVerdict(message).mentions).toEqual([]);
  });
});

describe('renderFrame — plan style', () => {
  it('renders the log as a plan block of task cards with Slack statuses', () => {
    const message = renderFrame(
      live([
        line('Read a.ts', { status: 'ok' }),
        line('npm test', { status: 'failed' }),
        line('Bash', { status: 'pending' }),
        line('a note'),
      ]),
      { logStyle: 'plan' },
    );
    expect(message.blocks?.map((block) => block.type)).toEqual(['context', 'plan']);
    const plan = message.blocks?.[1] as { tasks: { task_id: string; status: string }[] };
    expect(plan.tasks.map((task) => task.status)).toEqual(['complete', 'error', 'in_progress', 'complete']);
    expect(new Set(plan.tasks.map((task) => task.task_id)).size).toBe(4);
    expect(slackVerdict(message).blocks).toBe('blocks');
  });

  it('keeps at most 50 task cards, the newest', () => {
    const message = renderFrame(
      live(Array.from({ length: 80 }, (_, i) => line(`step ${i}`, { status: 'ok' }))),
      { logStyle: 'plan' },
    );
    const plan = message.blocks?.[1] as { title: string; tasks: { title: string }[] };
    expect(plan.tasks).toHaveLength(50);
    expect(plan.tasks.at(-1)!.title).toBe('step 79');
    expect(plan.title).toBe('Activity (30 earlier steps not shown)');
    expect(slackVerdict(message).blocks).toBe('blocks');
  });
});
