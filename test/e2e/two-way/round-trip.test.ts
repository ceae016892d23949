// spec: issue 13 item 7 — the full round trip on all three platforms, through `turnlog serve` (its platform
// intakes and GET /v1/actions) and the official clients against the emulators, which deliver the people's
// messages and clicks the platforms' way (Slack signed events, Google Chat JWTs, the Discord gateway):
// a person's message → the host sees `message` → the host starts a turn on it → a policy card → Approve →
// the host sees `decision` → the card shows who decided → the answer. The same for a `question` and for Stop.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { PLATFORM_SETUPS } from './platforms.js';
import { buttonsOf, messageWhere, runCleanups, start } from './serve-host.js';

afterEach(runCleanups);

const setupUser = (id: string, name: string) => (id === 'gchat' ? `users/${name}` : name);

describe.each(PLATFORM_SETUPS)('two-way on $id', (setup) => {
  it('message → turn on it → policy card → Approve → decision to the host → card shows it → answer', async () => {
    // Bob may decide too (an approver): the two presses race, and the first wins.
    const { platform, host } = await start(
      setup,
      {},
      { actions: { approvers: [setupUser(setup.id, 'bob')] } },
    );
    const person = await platform.personPosts('please clean the build dir');

    const message = await host.next('message', (a) => a.messageId === person.messageId);
    expect(message).toMatchObject({ space: host.space, text: 'please clean the build dir' });

    await host.events(
      { type: 'turn_started', turnId: 'T1', rootRef: message.id },
      { type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'rm -rf build' },
    );
    const card = await messageWhere(platform, (m) => buttonsOf(m).length === 2, 'policy card');
    expect(card.thread).not.toBeNull();

    // Two people press at once (both see the buttons): the first wins, the other is told it was decided.
    const [alice, bob] = await Promise.all([
      platform.click(card.id, 'approve', 'alice'),
      platform.click(card.id, 'reject', 'bob'),
    ]);
    expect(alice.delivered && bob.delivered).toBe(true);
    const decision = await host.next('decision');
    expect(decision).toMatchObject({ turnId: 'T1', requestId: 'p1' });
    const loser = decision.decision === 'approved' ? bob : alice;
    expect(loser.reply ?? '').toMatch(/already/i);

    // The card now says who decided, and has no buttons left.
    await vi.waitFor(
      async () => {
        const now = (await platform.messages()).find((m) => m.id === card.id);
        expect(buttonsOf(now as EmulatedMessage)).toEqual([]);
        expect(now?.text).toMatch(new RegExp(`${decision.decision} by`, 'i'));
      },
      { timeout: 20_000, interval: 50 },
    );

    await host.events(
      { type: 'policy_decision', turnId: 'T1', requestId: 'p1', decision: decision.decision },
      { type: 'answer', turnId: 'T1', text: 'Cleaned the build directory.' },
      { type: 'turn_ended', turnId: 'T1', outcome: 'ok' },
    );
    await messageWhere(platform, (m) => m.text.includes('Cleaned the build directory.'), 'answer');
    expect(host.seen.filter((a) => a.type === 'decision')).toHaveLength(1);
  });

  it('a question card: the chosen option reaches the host as an answer and the card shows it', async () => {
    const { platform, host } = await start(setup);
    const person = await platform.personPosts('deploy it');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'Q1', rootRef: message.id },
      {
        type: 'question',
        turnId: 'Q1',
        questionId: 'q1',
        question: 'How should we handle the failing test?',
        options: ['Skip it', { label: 'Fix and retry', selectedLabel: '✅ Fixing', value: 'fix' }],
      },
    );
    const card = await messageWhere(platform, (m) => buttonsOf(m).includes('answer:1'), 'question card');
    expect((await platform.click(card.id, 'answer:1', 'alice')).delivered).toBe(true);
    const answer = await host.next('answer');
    expect(answer).toMatchObject({ turnId: 'Q1', questionId: 'q1', value: 'fix', label: 'Fix and retry' });
    await vi.waitFor(
      async () => {
        const now = (await platform.messages()).find((m) => m.id === card.id);
        expect(now?.text).toContain('✅ Fixing');
        expect(buttonsOf(now as EmulatedMessage)).toEqual([]);
      },
      { timeout: 20_000, interval: 50 },
    );
    await host.events({ type: 'turn_ended', turnId: 'Q1', outcome: 'ok' });
  });

  it('Stop on the live log: the host sees stop, the log says stopping… until the turn ends', async () => {
    const { platform, host } = await start(setup, { stopButton: true });
    const person = await platform.personPosts('run the long job');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'S1', rootRef: message.id },
      { type: 'tool_call', turnId: 'S1', callId: 'c1', tool: 'Bash', input: { command: 'make all' } },
    );
    const log = await messageWhere(platform, (m) => buttonsOf(m).includes('stop'), 'log with Stop');
    expect((await platform.click(log.id, 'stop', 'alice')).delivered).toBe(true);
    expect(await host.next('stop')).toMatchObject({ turnId: 'S1' });
    await vi.waitFor(
      async () => {
        const now = (await platform.messages()).find((m) => m.id === log.id);
        expect(now?.text).toMatch(/stopping/);
      },
      { timeout: 20_000, interval: 50 },
    );
    await host.events({ type: 'turn_ended', turnId: 'S1', outcome: 'stopped' });
    await vi.waitFor(
      async () => {
        const now = (await platform.messages()).find((m) => m.id === log.id);
        expect(now?.text).not.toMatch(/stopping/);
        expect(buttonsOf(now as EmulatedMessage)).toEqual([]);
      },
      { timeout: 20_000, interval: 50 },
    );
  });
});
