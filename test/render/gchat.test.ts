// spec: docs/architecture.md §3 "one renderer per platform (Google Chat text/cardsV2) … user-supplied text can never
// ping a channel (`<users/all>`)"; docs/test-plan.md E2E 7 (the policy request's cardsV2 payload).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { broadMentionsFor, detectBroadMentions } from '../../src/emulators/core/mentions.js';
import {
  POLICY_DECISION_ACTION,
  renderCardFallbackText,
  renderGchatCard,
  renderGchatMessage,
  renderGchatText,
  renderLogLine,
} from '../../src/platforms/gchat/render.js';
import { MENTION_BREAK } from '../../src/render/mentions.js';
import type { FrameCard, FrameLine, SurfaceFrame } from '../../src/surfaces/frame.js';
import { markerLine } from '../../src/surfaces/frame.js';

const line = (text: string, time = '12:04:02'): FrameLine => ({ kind: 'tool', depth: 0, time, text });
const log = (...lines: FrameLine[]): SurfaceFrame => ({ kind: 'log', lines });
const prose = (markdown: string): SurfaceFrame => ({ kind: 'prose', markdown });

const Z = MENTION_BREAK;
const visible = (text: string) => text.replaceAll(Z, '');

describe('renderGchatText: turn-log lines are literal', () => {
  it('neutralizes <users/all> and a person mention in a log line so neither can ping', () => {
    const out = renderGchatText(log(line('tool: Bash(echo <users/all> <users/1234>)')));
    expect(broadMentionsFor('gchat', out)).toEqual([]);
    expect(out).not.toMatch(/<users\//);
    expect(visible(out)).toBe('• 12:04:02  tool: Bash(echo <users/all> <users/1234>)');
  });

  it('breaks backtick runs so a stray ``` cannot open a code block over the rest of the log', () => {
    const out = renderGchatText(
      log(line('tool: Bash(cat <<EOF ```js)', '12:00:01'), line('✓ Bash: done', '12:00:02')),
    );
    expect(out).not.toContain('``');
    expect(visible(out)).toBe('• 12:00:01  tool: Bash(cat <<EOF ```js)\n• 12:00:02  ✓ Bash: done');
    expect(out.split('\n')[1]).toBe('• 12:00:02  ✓ Bash: done');
  });

  it('shows a log line that looks like prose (Markdown) literally: it is a line, whatever its text', () => {
    expect(renderGchatText(log(line('# not a **heading**')))).toBe('• 12:04:02  # not a **heading**');
  });

  it('indents subagent lines by depth and shows the headline first', () => {
    const frame: SurfaceFrame = {
      kind: 'log',
      headline: { state: 'running', title: 'fix the build', elapsedMs: 184_000, now: 'running Bash (12s)' },
      lines: [
        { kind: 'subagent', status: 'pending', depth: 2, time: '12:00:01', text: 'subagent: x started' },
      ],
    };
    expect(renderGchatText(frame).split('\n')).toEqual([
      '⏳ fix the build · 3m 04s · running Bash (12s)',
      '• 12:00:01      ⋯ subagent: x started',
    ]);
  });

  it('breaks closed <…> tokens (a link with a misleading label) but leaves comparisons and heredocs alone', () => {
    expect(renderLogLine('• 12:00:01  tool: WebFetch(<https://evil.example|docs.google.com>)')).toBe(
      `• 12:00:01  tool: WebFetch(<${Z}https://evil.example|docs.google.com>)`,
    );
    expect(renderLogLine('• 12:00:01  tool: Bash(test 1 < 2 && cat <<EOF)')).toBe(
      '• 12:00:01  tool: Bash(test 1 < 2 && cat <<EOF)',
    );
  });

  it('keeps single emphasis markers (commands copy as written)', () => {
    expect(renderGchatText(log(line('tool: Bash(rm -rf build/*.o *_tmp ~/x)', '12:00:01')))).toBe(
      '• 12:00:01  tool: Bash(rm -rf build/*.o *_tmp ~/x)',
    );
  });

  it('also covers the condenser markers (they are log lines)', () => {
    expect(renderGchatText(log(markerLine('…3 earlier entries dropped'), line('`a``b`', '12:00:01')))).toBe(
      `• …3 earlier entries dropped\n• 12:00:01  \`a\`${Z}\`b\``,
    );
  });
});

describe('renderGchatText: prose (the final answer) in Chat syntax', () => {
  it('turns Markdown bold, strikethrough, links and headings into Chat markup', () => {
    expect(
      renderGchatText(
        prose('# Summary\nThe **build** is ~~broken~~ fixed: see [the PR](https://example.com/pr/1).'),
      ),
    ).toBe('*Summary*\nThe *build* is ~broken~ fixed: see <https://example.com/pr/1|the PR>.');
  });

  it('leaves inline code and fenced blocks as written', () => {
    const answer = 'Run `a **b** c` then:\n```\nx = **y**\n[k](https://k.example)\n```\nand **done**';
    expect(renderGchatText(prose(answer))).toBe(
      'Run `a **b** c` then:\n```\nx = **y**\n[k](https://k.example)\n```\nand *done*',
    );
  });

  it('neutralizes mentions in prose too, code blocks included', () => {
    const out = renderGchatText(prose('Hey <users/all>!\n```\n<users/all>\n```'));
    expect(detectBroadMentions(out)).toEqual([]);
  });

  it('property: no rendered text holds a live broad mention', () => {
    const pieces = fc.constantFrom(
      '• 12:00:01  ',
      '<users/all>',
      '<!here>',
      '@everyone',
      '```',
      '**',
      '\n',
      'x',
      '<',
      '>',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 3 })), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(detectBroadMentions(renderGchatText(prose(text)))).toEqual([]);
        expect(detectBroadMentions(renderGchatText(log(line(text))))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('is linear on hostile input', () => {
    const logText = renderGchatText(log(line(`${'<a|'.repeat(100_000)}${'`'.repeat(100_000)}`)));
    const proseText = renderGchatText(prose('**['.repeat(100_000)));
    expect(logText).not.toContain('``');
    expect(proseText).not.toContain('**');
  });
});

interface CardBody {
  header: { title: string };
  sections: {
    widgets: {
      textParagraph?: { text: string };
      buttonList?: {
        buttons: {
          text: string;
          onClick: { action: { function: string; parameters: { key: string; value: string }[] } };
        }[];
      };
    }[];
  }[];
}

describe('policy card', () => {
  const card: FrameCard = {
    kind: 'policy',
    id: 'p1',
    title: 'Approval needed',
    body: 'rm -rf /tmp/cache',
    actions: [
      { id: 'approve', label: 'Approve', style: 'primary' },
      { id: 'reject', label: 'Reject', style: 'danger' },
    ],
  };

  it('is a cardsV2 card: header title, the command in a monospace block, approve/reject carrying requestId and the decision', () => {
    const [rendered] = renderGchatCard(card);
    expect(rendered?.cardId).toBe('policy-p1');
    const body = rendered!.card as unknown as CardBody;
    expect(body.header.title).toBe('Approval needed');
    const widgets = body.sections[0]!.widgets;
    expect(widgets[0]).toEqual({
      textParagraph: { text: '```\nrm -rf /tmp/cache\n```', textSyntax: 'MARKDOWN' },
    });
    const buttons = widgets.find((w) => w.buttonList)!.buttonList!.buttons;
    expect(buttons.map((b) => b.text)).toEqual(['Approve', 'Reject']);
    expect(buttons.map((b) => b.onClick.action.function)).toEqual([
      POLICY_DECISION_ACTION,
      POLICY_DECISION_ACTION,
    ]);
    expect(buttons.map((b) => b.onClick.action.parameters)).toEqual([
      [
        { key: 'requestId', value: 'p1' },
        { key: 'decision', value: 'approved' },
      ],
      [
        { key: 'requestId', value: 'p1' },
        { key: 'decision', value: 'rejected' },
      ],
    ]);
  });

  it('a decided card shows its outcome and no buttons', () => {
    const [rendered] = renderGchatCard({ ...card, actions: [], outcome: '✅ approved by Alice' });
    const widgets = (rendered!.card as unknown as CardBody).sections[0]!.widgets;
    expect(widgets.some((w) => w.buttonList)).toBe(false);
    expect(JSON.stringify(widgets)).toContain('✅ approved by Alice');
  });

  it('a card frame is sent as cardsV2 with a fallbackText that cannot ping', () => {
    const message = renderGchatMessage({ kind: 'card', card: { ...card, title: 'Run it? <users/all>' } });
    expect(message).toMatchObject({ cardsV2: [{ cardId: 'policy-p1' }] });
    expect(detectBroadMentions((message as { fallbackText: string }).fallbackText)).toEqual([]);
  });

  it('escapes the request id for the card (HTML text) and keeps backticks from closing the block', () => {
    const [rendered] = renderGchatCard({ ...card, id: '<b>x</b>', title: 't', body: 'echo ```x```' });
    const json = JSON.stringify(rendered);
    expect(json).toContain('&lt;b&gt;x&lt;/b&gt;');
    const paragraph = (rendered!.card as unknown as CardBody).sections[0]!.widgets[0]!.textParagraph!.text;
    expect(paragraph.slice(4, -4)).not.toContain('``');
  });

  it('refuses a card without an id', () => {
    expect(() => renderGchatCard({ ...card, id: '' })).toThrow(/empty id/);
  });

  it('has a plain-text fallback with the title, the command block and the request id, unable to ping', () => {
    const text = renderCardFallbackText({ ...card, title: 'Run it? <users/all>' });
    expect(text.split('\n')).toEqual([
      `🔐 *Run it? <${Z}users/all>*`,
      '```',
      'rm -rf /tmp/cache',
      '```',
      'Request p1: the approve/reject buttons could not be shown.',
    ]);
    expect(detectBroadMentions(text)).toEqual([]);
  });
});

describe('renderGchatText: disguised links (issue 9 item 9)', () => {
  it('never shows one address while linking to another, in an answer or a job header', () => {
    expect(renderGchatText(prose('<https://evil.example/login|https://accounts.google.com>'))).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(renderGchatText(prose('[https://accounts.google.com](https://evil.example/login)'))).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(renderGchatText(prose('🕒 nightly <https://evil.example|https://ci.example.com/job/1>'))).toBe(
      '🕒 nightly https://ci.example.com/job/1 (https://evil.example)',
    );
    expect(renderGchatText(prose('<javascript:alert(1)|click>'))).not.toContain('<javascript');
    expect(renderGchatText(prose('see [the report](https://ci.example.com/r/1)'))).toBe(
      'see <https://ci.example.com/r/1|the report>',
    );
  });
});
