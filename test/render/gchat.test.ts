// spec: ARCHITECTURE.md §3 "one renderer per platform (Google Chat text/cardsV2) … user-supplied text can never
// ping a channel (`<users/all>`)"; gchat-threaded-activity-log.md E2E 7 (the policy request's cardsV2 payload).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { broadMentionsFor, detectBroadMentions } from '../../src/emulators/core/mentions.js';
import {
  POLICY_DECISION_ACTION,
  renderGchatText,
  renderLogLine,
  renderPolicyCard,
  renderPolicyFallbackText,
} from '../../src/render/gchat.js';
import { MENTION_BREAK } from '../../src/render/mentions.js';

const Z = MENTION_BREAK;
const visible = (text: string) => text.replaceAll(Z, '');

describe('renderGchatText: turn-log lines are literal', () => {
  it('neutralizes <users/all> and a person mention in a log line so neither can ping', () => {
    const line = '• 12:04:02  tool: Bash(echo <users/all> <users/1234>)';
    const out = renderGchatText(line);
    expect(broadMentionsFor('gchat', out)).toEqual([]);
    expect(out).not.toMatch(/<users\//);
    expect(visible(out)).toBe(line);
  });

  it('breaks backtick runs so a stray ``` cannot open a code block over the rest of the log', () => {
    const log = ['• 12:00:01  tool: Bash(cat <<EOF ```js)', '• 12:00:02  ✓ Bash: done'].join('\n');
    const out = renderGchatText(log);
    expect(out).not.toContain('``');
    expect(visible(out)).toBe(log);
    expect(out.split('\n')[1]).toBe('• 12:00:02  ✓ Bash: done');
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
    const line = '• 12:00:01  tool: Bash(rm -rf build/*.o *_tmp ~/x)';
    expect(renderGchatText(line)).toBe(line);
  });

  it('also covers the condenser markers (they are log lines)', () => {
    expect(renderGchatText('• …3 earlier entries dropped\n• 12:00:01  `a``b`')).toBe(
      `• …3 earlier entries dropped\n• 12:00:01  \`a\`${Z}\`b\``,
    );
  });
});

describe('renderGchatText: prose (the final answer) in Chat syntax', () => {
  it('turns Markdown bold, strikethrough, links and headings into Chat markup', () => {
    expect(
      renderGchatText(
        '# Summary\nThe **build** is ~~broken~~ fixed: see [the PR](https://example.com/pr/1).',
      ),
    ).toBe('*Summary*\nThe *build* is ~broken~ fixed: see <https://example.com/pr/1|the PR>.');
  });

  it('leaves inline code and fenced blocks as written', () => {
    const answer = 'Run `a **b** c` then:\n```\nx = **y**\n[k](https://k.example)\n```\nand **done**';
    expect(renderGchatText(answer)).toBe(
      'Run `a **b** c` then:\n```\nx = **y**\n[k](https://k.example)\n```\nand *done*',
    );
  });

  it('neutralizes mentions in prose too, code blocks included', () => {
    const out = renderGchatText('Hey <users/all>!\n```\n<users/all>\n```');
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
        expect(detectBroadMentions(renderGchatText(parts.join('')))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('is linear on hostile input', () => {
    const hostile = `• 12:00:01  ${'<a|'.repeat(100_000)}${'`'.repeat(100_000)}\n${'**['.repeat(100_000)}`;
    const [log, prose] = renderGchatText(hostile).split('\n');
    expect(log).not.toContain('``');
    expect(prose).not.toContain('**');
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
  const card = { requestId: 'p1', title: 'Approval needed', command: 'rm', args: ['-rf', '/tmp/cache'] };

  it('is a cardsV2 card: header title, the command in a monospace block, approve/reject carrying requestId and the decision', () => {
    const [rendered] = renderPolicyCard(card);
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

  it('escapes the request id for the card (HTML text) and keeps backticks from closing the block', () => {
    const [rendered] = renderPolicyCard({ requestId: '<b>x</b>', title: 't', command: 'echo ```x```' });
    const json = JSON.stringify(rendered);
    expect(json).toContain('&lt;b&gt;x&lt;/b&gt;');
    const paragraph = (rendered!.card as unknown as CardBody).sections[0]!.widgets[0]!.textParagraph!.text;
    expect(paragraph.slice(4, -4)).not.toContain('``');
  });

  it('refuses a card without a request id', () => {
    expect(() => renderPolicyCard({ ...card, requestId: '' })).toThrow(/empty requestId/);
  });

  it('has a plain-text fallback with the title, the command block and the request id, unable to ping', () => {
    const text = renderPolicyFallbackText({ ...card, title: 'Run it? <users/all>' });
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
    expect(renderGchatText('<https://evil.example/login|https://accounts.google.com>')).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(renderGchatText('[https://accounts.google.com](https://evil.example/login)')).toBe(
      'https://accounts.google.com (https://evil.example/login)',
    );
    expect(renderGchatText('🕒 nightly <https://evil.example|https://ci.example.com/job/1>')).toBe(
      '🕒 nightly https://ci.example.com/job/1 (https://evil.example)',
    );
    expect(renderGchatText('<javascript:alert(1)|click>')).not.toContain('<javascript');
    expect(renderGchatText('see [the report](https://ci.example.com/r/1)')).toBe(
      'see <https://ci.example.com/r/1|the report>',
    );
  });
});
