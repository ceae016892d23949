/**
 * Issue 25.1/25.4: the page's HTML from the run record. Every kind of event
 * in order, subagents nested, outputs capped at 8,000 characters and
 * collapsed, the answer as safe Markdown, and the hostile payloads escaped:
 * `</script>` cannot close the JSON block, markup stays text, `javascript:`
 * never becomes a link, a link's label never hides its target, bidi
 * controls are shown as code points.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/events/schema.js';
import { jsonForHtml, pageHtml } from '../../../src/serve/run-page/html.js';
import { headlineOf, itemsOf, MAX_DETAIL_CHARS } from '../../../src/serve/run-page/items.js';
import { markdownHtml, parseMarkdown } from '../../../src/serve/run-page/markdown.js';

const SPACE = 'slack:C0123ABCD';
const HOSTILE = '</script><script>alert(1)</script>"><img src=x onerror=alert(2)>';
const e = (seq: number, event: Record<string, unknown>) =>
  ({ space: SPACE, turnId: 'T1', seq, at: 1_000 * seq, ...event }) as RunEvent;

const record: RunEvent[] = [
  e(1, { type: 'turn_started', user: { name: 'Ada' } }),
  e(2, { type: 'input', text: `fix it ${HOSTILE}` }),
  e(3, { type: 'tool_call', callId: 'c1', tool: 'Bash', input: { command: HOSTILE } }),
  e(5, {
    type: 'tool_result',
    callId: 'c1',
    tool: 'Bash',
    ok: false,
    exitCode: 2,
    output: 'x'.repeat(1_000_000),
  }),
  e(6, { type: 'subagent', subagentId: 'S1', status: 'started', name: 'reader' }),
  e(7, { type: 'tool_call', callId: 'c2', tool: 'Read', subagentId: 'S1', input: { path: 'a.ts' } }),
  e(8, { type: 'policy_request', requestId: 'p1', command: 'rm', args: ['-rf', 'build'] }),
  e(9, { type: 'policy_decision', requestId: 'p1', decision: 'approved', decidedBy: 'Grace' }),
  e(10, { type: 'question', questionId: 'q1', question: 'Deploy?', options: ['yes', 'no'] }),
  e(11, { type: 'note', text: 'right\u202Eevil', level: 'warn' }),
  e(12, {
    type: 'answer',
    text: `# Done\n\n**Fixed** the [build](https://ci.example/1), not [https://good.example](https://evil.example) or [x](javascript:alert(3)).\n\n- one\n- two\n\n\`\`\`\n${HOSTILE}\n\`\`\``,
  }),
];

describe('the run page HTML', () => {
  const items = itemsOf(record);
  const html = pageHtml(headlineOf('T1', record, { state: 'ended', ended: true, outcome: 'ok' }), items);

  it('shows every event in seq order with the headline, nesting the subagent’s events under it', () => {
    expect(items.map((item) => item.seq)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(items.find((item) => item.seq === 6)?.depth).toBe(0);
    expect(items.find((item) => item.seq === 7)?.depth).toBe(1);
    expect(items.find((item) => item.seq === 5)?.meta).toEqual(['failed', 'exit 2', '2.0 s']);
    expect(items.find((item) => item.seq === 9)?.meta).toEqual(['by Grace']);
    expect(html).toContain('<dd id="started-by">Ada</dd>');
    expect(html).toContain('<dd id="space">slack:C0123ABCD</dd>');
    expect(html).toContain('<dd id="elapsed">11 s</dd>');
    expect(html).toContain('finished (ok)');
    expect(html).toContain('Deploy?');
    expect(html).toContain('rm -rf build');
    expect(html).toContain('class="item kind-tool_call depth-1"');
  });

  it('caps an output at 8,000 characters, collapsed in <details>, and says how much is cut', () => {
    const result = items.find((item) => item.seq === 5);
    expect(result?.output).toHaveLength(MAX_DETAIL_CHARS);
    expect(result?.cut).toBe(1_000_000 - MAX_DETAIL_CHARS);
    expect(html).toContain(
      '<details class="output"><summary>Output (first 8000 characters; 992000 more not shown)</summary>',
    );
    expect(html.length).toBeLessThan(100_000);
  });

  it('keeps hostile payloads as text: no script, no element, no javascript: link, bidi shown', () => {
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('javascript:alert(3)"');
    expect(html).toContain(
      '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;',
    );
    expect(html).toContain('right&lt;U+202E&gt;evil');
    expect(html).not.toContain('\u202E');
    expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
  });

  it('renders the answer as Markdown whose links show their real target', () => {
    expect(html).toContain('<h1>Done</h1>');
    expect(html).toContain('<strong>Fixed</strong>');
    expect(html).toContain(
      '<a href="https://ci.example/1" rel="noopener noreferrer nofollow">build</a> (https://ci.example/1)',
    );
    expect(html).toContain(
      '<a href="https://evil.example" rel="noopener noreferrer nofollow">https://good.example</a> (https://evil.example)',
    );
    expect(html).toContain('[x](javascript:alert(3))');
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(markdownHtml(parseMarkdown('<b>x</b> & `<i>`'))).toBe(
      '<p>&lt;b&gt;x&lt;/b&gt; &amp; <code>&lt;i&gt;</code></p>',
    );
  });

  it('reads a turn as finished once its record holds turn_ended, while the runtime still sends the final frame', () => {
    const ended = [...record, e(13, { type: 'turn_ended', outcome: 'error' })];
    expect(headlineOf('T1', ended, { state: 'opened.live', ended: false })).toMatchObject({
      ended: true,
      state: 'ended',
      outcome: 'error',
    });
    expect(headlineOf('T1', record, { state: 'opened.live', ended: false })).toMatchObject({ ended: false });
  });

  it('escapes the embedded JSON so </script> in data cannot close its block', () => {
    const json = jsonForHtml({ turnId: HOSTILE, line: '\u2028' });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ turnId: HOSTILE, line: '\u2028' });
  });
});
