// spec: Slack Block Kit as chat.postMessage checks it (50 blocks, section text 3000, header 150, unique block_id),
// the text a person sees, and which broad mentions blocks fire (rich_text text literal, broadcast pings).
import { describe, expect, it } from 'vitest';
import {
  type Block,
  blocksToText,
  broadMentionsInBlocks,
  buttonsInBlocks,
  parseBlocksArg,
} from '../../../src/emulators/slack/blocks.js';

function parsed(value: unknown): Block[] {
  const result = parseBlocksArg(value);
  if (result.kind !== 'blocks') throw new Error(`expected valid blocks, got ${JSON.stringify(result)}`);
  return result.blocks;
}

const section = (...elements: Record<string, unknown>[]) => ({ type: 'rich_text_section', elements });

describe('parseBlocksArg', () => {
  it('treats no blocks, an empty string and an empty list as absent', () => {
    expect(parseBlocksArg(undefined)).toEqual({ kind: 'absent' });
    expect(parseBlocksArg('')).toEqual({ kind: 'absent' });
    expect(parseBlocksArg('[]')).toEqual({ kind: 'absent' });
  });

  it('reads a JSON-encoded list (form body) and a list (JSON body) alike', () => {
    const blocks = [{ type: 'divider' }];
    expect(parsed(JSON.stringify(blocks))).toEqual(blocks);
    expect(parsed(blocks)).toEqual(blocks);
  });

  it('calls text that is not a JSON array unreadable (invalid_blocks_format)', () => {
    expect(parseBlocksArg('[{')).toEqual({ kind: 'unreadable' });
    expect(parseBlocksArg('{"type":"divider"}')).toEqual({ kind: 'unreadable' });
  });

  it('refuses more than 50 blocks, pointing at /blocks', () => {
    const result = parseBlocksArg(Array(51).fill({ type: 'divider' }));
    expect(result).toEqual({
      kind: 'invalid',
      errors: [expect.stringMatching(/\[json-pointer:\/blocks\]$/)],
    });
    expect(parseBlocksArg(Array(50).fill({ type: 'divider' })).kind).toBe('blocks');
  });

  it('names each broken field with a json-pointer', () => {
    const result = parseBlocksArg([
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      { type: 'section' },
      { type: 'rich_text', elements: [section({ type: 'broadcast', range: 'world' })] },
      { type: 'mystery' },
    ]);

    expect(result.kind).toBe('invalid');
    const pointers =
      result.kind === 'invalid'
        ? result.errors.map((error) => /\[json-pointer:(.*)\]$/.exec(error)?.[1])
        : [];
    expect(pointers).toEqual([
      '/blocks/0/text/text',
      '/blocks/1',
      '/blocks/2/elements/0/elements/0/range',
      '/blocks/3/type',
    ]);
  });

  it('refuses a repeated block_id', () => {
    const result = parseBlocksArg([
      { type: 'divider', block_id: 'a' },
      { type: 'divider', block_id: 'a' },
    ]);
    expect(result).toEqual({
      kind: 'invalid',
      errors: ['duplicate block_id [json-pointer:/blocks/1/block_id]'],
    });
  });

  it('takes section text up to 3000 characters', () => {
    expect(parseBlocksArg([{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3000) } }]).kind).toBe(
      'blocks',
    );
    expect(parseBlocksArg([{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }]).kind).toBe(
      'invalid',
    );
  });
});

describe('blocksToText', () => {
  it('reads rich_text as a person sees it: elements joined, containers on their own lines', () => {
    const blocks = parsed([
      {
        type: 'rich_text',
        elements: [
          section(
            { type: 'emoji', name: 'wrench' },
            { type: 'text', text: ' ran ' },
            { type: 'link', url: 'https://ci.example/1', text: 'CI' },
            { type: 'text', text: ' for ' },
            { type: 'user', user_id: 'U1' },
          ),
          { type: 'rich_text_list', style: 'ordered', elements: [section({ type: 'text', text: 'lint' })] },
          { type: 'rich_text_quote', elements: [{ type: 'text', text: 'quoted' }] },
          { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'exit 0' }] },
        ],
      },
    ]);
    expect(blocksToText(blocks)).toBe(':wrench: ran CI for <@U1>\n1. lint\n> quoted\nexit 0');
  });

  it('reads section text and fields, headers, context and markdown, skipping dividers', () => {
    const blocks = parsed([
      { type: 'header', text: { type: 'plain_text', text: 'Title' } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*bold*' },
        fields: [{ type: 'plain_text', text: 'f1' }],
      },
      { type: 'divider' },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: 'a' }, { type: 'image' }, { type: 'plain_text', text: 'b' }],
      },
      { type: 'markdown', text: '**md**' },
    ]);
    expect(blocksToText(blocks)).toBe('Title\n*bold*\nf1\na b\n**md**');
  });
});

describe('broadMentionsInBlocks', () => {
  it('fires broadcast and usergroup elements, never rich_text text elements, also inside lists', () => {
    const blocks = parsed([
      {
        type: 'rich_text',
        elements: [
          section(
            { type: 'text', text: '<!channel> <!everyone>' },
            { type: 'usergroup', usergroup_id: 'S0TEAM' },
          ),
          {
            type: 'rich_text_list',
            style: 'bullet',
            elements: [section({ type: 'broadcast', range: 'everyone' })],
          },
        ],
      },
    ]);
    expect(broadMentionsInBlocks(blocks)).toEqual(['<!subteam^S0TEAM>', '<!everyone>']);
  });

  it('fires mrkdwn in section fields and context, not plain_text or headers', () => {
    const blocks = parsed([
      { type: 'header', text: { type: 'plain_text', text: '<!channel>' } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '<!here>' },
          { type: 'plain_text', text: '<!everyone>' },
        ],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: '<!channel|channel>' }] },
    ]);
    expect(broadMentionsInBlocks(blocks)).toEqual(['<!here>', '<!channel>']);
  });
});

const task = (task_id: string, status = 'complete', extra: Record<string, unknown> = {}) => ({
  type: 'task_card',
  task_id,
  title: `task ${task_id}`,
  status,
  ...extra,
});

const pointersOf = (value: unknown) => {
  const result = parseBlocksArg(value);
  return result.kind === 'invalid'
    ? result.errors.map((error) => /\[json-pointer:(.*)\]$/.exec(error)?.[1])
    : [];
};

describe('parseBlocksArg — text elements, buttons, plan and task_card', () => {
  it('holds a rich_text text element to 3,000 characters', () => {
    const rich = (text: string) => [{ type: 'rich_text', elements: [section({ type: 'text', text })] }];
    expect(parseBlocksArg(rich('x'.repeat(3000))).kind).toBe('blocks');
    expect(pointersOf(rich('x'.repeat(3001)))).toEqual(['/blocks/0/elements/0/elements/0/text']);
  });

  it('checks buttons: a plain_text label of at most 75, unique action ids, a known style', () => {
    const buttonBlock = (...elements: Record<string, unknown>[]) => ({ type: 'actions', elements });
    const label = (text: string) => ({ type: 'plain_text', text });
    expect(
      parseBlocksArg([
        buttonBlock({ type: 'button', text: label('Approve'), action_id: 'a', style: 'primary' }),
      ]).kind,
    ).toBe('blocks');
    expect(
      pointersOf([buttonBlock({ type: 'button', text: label('x'.repeat(76)), action_id: 'a' })]),
    ).toEqual(['/blocks/0/elements/0/text/text']);
    expect(
      pointersOf([
        buttonBlock({ type: 'button', text: label('A'), action_id: 'same' }),
        buttonBlock({ type: 'button', text: label('B'), action_id: 'same' }),
      ]),
    ).toEqual(['/blocks/1/elements/0/action_id']);
    expect(pointersOf([buttonBlock({ type: 'button', text: label('A'), style: 'loud' })])).toEqual([
      '/blocks/0/elements/0/style',
    ]);
  });

  it('takes a plan of up to 50 task cards with Slack’s four statuses, and unique task ids', () => {
    const plan = (tasks: unknown[]) => [{ type: 'plan', title: 'Plan', tasks }];
    const fifty = Array.from({ length: 50 }, (_, i) => task(`t${i}`));
    expect(parseBlocksArg(plan(fifty)).kind).toBe('blocks');
    expect(pointersOf(plan([...fifty, task('t50')]))).toEqual(['/blocks/0/tasks']);
    expect(pointersOf(plan([task('a', 'completed')]))).toEqual(['/blocks/0/tasks/0/status']);
    expect(pointersOf(plan([task('a'), task('a')]))).toEqual(['/blocks/0/tasks/1/task_id']);
    expect(pointersOf([{ type: 'plan' }])).toEqual(['/blocks/0/title']);
  });

  it('refuses plan and bare task_card blocks in one message', () => {
    expect(parseBlocksArg([task('a'), task('b')]).kind).toBe('blocks');
    expect(pointersOf([{ type: 'plan', title: 'P', tasks: [task('a')] }, task('b')])).toEqual(['/blocks/1']);
  });
});

describe('blocksToText and buttonsInBlocks — plan, task cards and buttons', () => {
  it('shows a plan as its title and one marked line per task, and buttons as labels', () => {
    const blocks = parsed([
      {
        type: 'plan',
        title: 'Activity',
        tasks: [task('1', 'complete'), task('2', 'error'), task('3', 'in_progress'), task('4', 'pending')],
      },
      {
        type: 'actions',
        elements: [
          { type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'approve' },
          { type: 'button', text: { type: 'plain_text', text: 'Reject' }, value: 'reject' },
        ],
      },
    ]);
    expect(blocksToText(blocks)).toBe('Activity\n✓ task 1\n✗ task 2\n◐ task 3\n○ task 4\n[Approve] [Reject]');
    expect(buttonsInBlocks(blocks)).toEqual([
      { action: 'approve', label: 'Approve' },
      { action: 'reject', label: 'Reject' },
    ]);
  });

  it('fires broadcast elements inside a task card’s details, never its literal text', () => {
    const details = {
      type: 'rich_text',
      elements: [section({ type: 'text', text: '<!channel>' }, { type: 'broadcast', range: 'here' })],
    };
    expect(broadMentionsInBlocks(parsed([task('a', 'complete', { details })]))).toEqual(['<!here>']);
  });
});
