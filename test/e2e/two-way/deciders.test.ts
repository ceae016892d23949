// spec: issue 22.2 — who may decide (docs/http-api.md (actions), "Who may decide"), on all three platforms through
// `turnlog serve` and the emulators: a bystander's Approve or Stop reaches no host, changes no card and is told
// privately; the requester (the root message's author, or turn_started.requestedBy) and approvers decide;
// with neither known nor configured, anyone may and the turn's warnings say so.
// spec: issue 22.5 — a card of an ended turn loses its buttons, and a late press makes no action.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { PLATFORM_SETUPS } from './platforms.js';
import { buttonsOf, type Host, messageWhere, runCleanups, start, TOKEN } from './serve-host.js';

afterEach(runCleanups);

const NOT_YOURS = /Only the person who asked for this turn or an approver/;

/** Nobody but the presser saw a private reply: no message of the space carries it. */
async function nobodyElseSees(platform: { messages(): Promise<EmulatedMessage[]> }, text: RegExp) {
  expect((await platform.messages()).filter((m) => text.test(m.text))).toEqual([]);
}

/** Every action the host can read now (wait 0), from its cursor on. */
async function drain(host: Host) {
  const query = new URLSearchParams({ wait: '0', ...(host.cursor ? { after: host.cursor } : {}) });
  const res = await fetch(`${host.url}/v1/actions?${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const page = (await res.json()) as { actions: typeof host.seen; cursor: string };
  host.cursor = page.cursor;
  host.seen.push(...page.actions);
  return host.seen;
}

describe.each(PLATFORM_SETUPS)('who may decide on $id', (setup) => {
  // Issue 22.2: the bystander's press counts for nothing; the requester (root message's author) decides.
  it('a bystander’s Approve and Stop reach no host and change nothing; the requester’s Approve counts', async () => {
    const { platform, host } = await start(setup, { stopButton: true });
    const person = await platform.personPosts('please clean the build dir');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'D1', rootRef: message.id },
      { type: 'tool_call', turnId: 'D1', callId: 'c1', tool: 'Bash', input: { command: 'ls' } },
      { type: 'policy_request', turnId: 'D1', requestId: 'p1', command: 'rm -rf build' },
    );
    const card = await messageWhere(platform, (m) => buttonsOf(m).includes('approve'), 'policy card');
    const log = await messageWhere(platform, (m) => buttonsOf(m).includes('stop'), 'log with Stop');

    const approve = await platform.click(card.id, 'approve', 'bob');
    const stop = await platform.click(log.id, 'stop', 'bob');
    expect(approve.reply).toMatch(NOT_YOURS);
    expect(stop.reply).toMatch(NOT_YOURS);
    await nobodyElseSees(platform, NOT_YOURS);
    expect((await drain(host)).filter((a) => a.type !== 'message')).toEqual([]);
    const now = (await platform.messages()).find((m) => m.id === card.id) as EmulatedMessage;
    expect(buttonsOf(now)).toEqual(['approve', 'reject']);
    expect((await platform.messages()).find((m) => m.id === log.id)?.text).not.toMatch(/stopping/);

    // The requester is not locked out by the bystander's press.
    expect((await platform.click(card.id, 'approve', 'alice')).reply ?? '').not.toMatch(NOT_YOURS);
    const decision = await host.next('decision');
    expect(decision).toMatchObject({
      turnId: 'D1',
      decision: 'approved',
      user: { id: platform.userId('alice') },
    });
    await host.events({ type: 'turn_ended', turnId: 'D1', outcome: 'ok' });
  });

  // Issue 22.2: turn_started.requestedBy names the requester; spaces.<space>.approvers may decide too.
  it('requestedBy and a space’s approvers decide; the root’s author named by neither does not', async () => {
    const probe = await setup.start();
    const space = `${setup.id}:${probe.space}`;
    const carol = probe.userId('carol');
    const dave = probe.userId('dave');
    await probe.close();
    const { platform, host } = await start(setup, {}, { spaces: { [space]: { approvers: [carol] } } });
    const person = await platform.personPosts('deploy it');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'D2', rootRef: message.id, requestedBy: dave },
      {
        type: 'question',
        turnId: 'D2',
        questionId: 'q1',
        question: 'Which way?',
        options: ['Left', 'Right'],
      },
      { type: 'policy_request', turnId: 'D2', requestId: 'p2', command: 'deploy --prod' },
    );
    const question = await messageWhere(platform, (m) => buttonsOf(m).includes('answer:1'), 'question card');
    const policy = await messageWhere(platform, (m) => buttonsOf(m).includes('approve'), 'policy card');
    // alice posted the root, but the host said dave asked.
    expect((await platform.click(question.id, 'answer:0', 'alice')).reply).toMatch(NOT_YOURS);
    expect((await platform.click(question.id, 'answer:1', 'dave')).reply ?? '').not.toMatch(NOT_YOURS);
    expect(await host.next('answer')).toMatchObject({ questionId: 'q1', value: 'Right', user: { id: dave } });
    expect((await platform.click(policy.id, 'reject', 'carol')).reply ?? '').not.toMatch(NOT_YOURS);
    expect(await host.next('decision')).toMatchObject({
      requestId: 'p2',
      decision: 'rejected',
      user: { id: carol },
    });
    expect(host.seen.filter((a) => a.type === 'answer' && a.user.id !== dave)).toEqual([]);
    await host.events({ type: 'turn_ended', turnId: 'D2', outcome: 'ok' });
  });

  // Issue 22.2: no requester known and no approvers: anyone may, and the turn's warnings say so.
  it('a turn with no known requester and no approvers: anyone decides, and its warnings say so', async () => {
    const { platform, host, serve } = await start(setup);
    await host.events(
      { type: 'turn_started', turnId: 'D3', title: 'Nightly' },
      { type: 'policy_request', turnId: 'D3', requestId: 'p3', command: 'rotate logs' },
    );
    const card = await messageWhere(platform, (m) => buttonsOf(m).includes('approve'), 'policy card');
    expect((await platform.click(card.id, 'approve', 'bob')).reply ?? '').not.toMatch(NOT_YOURS);
    expect(await host.next('decision')).toMatchObject({
      requestId: 'p3',
      user: { id: platform.userId('bob') },
    });
    const view = await fetch(`${serve.url}/v1/turns/D3`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await view.json()) as { warnings: string[] }).warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/anyone in the space may decide this turn’s cards/)]),
    );
    await host.events({ type: 'turn_ended', turnId: 'D3', outcome: 'ok' });
  });
});

describe.each(PLATFORM_SETUPS)('ended turns’ cards on $id', (setup) => {
  // Issue 22.5: the cards of an ended turn lose their buttons; a late press is told and makes no action.
  it('an ended turn’s policy and question cards lose their buttons and say the turn ended', async () => {
    const { platform, host } = await start(setup);
    const person = await platform.personPosts('tidy up');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'E1', rootRef: message.id },
      { type: 'policy_request', turnId: 'E1', requestId: 'p1', command: 'rm -rf tmp' },
      { type: 'question', turnId: 'E1', questionId: 'q1', question: 'Keep logs?', options: ['Yes', 'No'] },
    );
    const policy = await messageWhere(platform, (m) => buttonsOf(m).includes('approve'), 'policy card');
    const question = await messageWhere(platform, (m) => buttonsOf(m).includes('answer:0'), 'question card');
    await host.events({ type: 'turn_ended', turnId: 'E1', outcome: 'ok' });
    await vi.waitFor(
      async () => {
        const now = await platform.messages();
        for (const card of [policy, question]) {
          const seen = now.find((m) => m.id === card.id) as EmulatedMessage;
          expect(buttonsOf(seen)).toEqual([]);
          expect(seen.text).toMatch(/the turn has ended/);
        }
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(host.seen.filter((a) => a.type !== 'message')).toEqual([]);
  });

  // Issue 22.5: a press that comes after the turn ended (the card's edit refused, so the buttons still show)
  // is answered "this turn has ended", privately, and makes no action.
  it('a late press on an ended turn’s card is told it ended and makes no action', async () => {
    const { platform, host, serve } = await start(setup);
    const person = await platform.personPosts('tidy up');
    const message = await host.next('message', (a) => a.messageId === person.messageId);
    await host.events(
      { type: 'turn_started', turnId: 'E2', rootRef: message.id },
      { type: 'policy_request', turnId: 'E2', requestId: 'p1', command: 'rm -rf tmp' },
    );
    const policy = await messageWhere(platform, (m) => buttonsOf(m).includes('approve'), 'policy card');
    // Every edit is refused from now on: the card keeps its buttons, as a stale client would show them.
    await platform.fault({ op: 'update', status: 400 });
    await host.events({ type: 'turn_ended', turnId: 'E2', outcome: 'ok' });
    await vi.waitFor(
      async () => {
        const res = await fetch(`${serve.url}/v1/turns/E2`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(((await res.json()) as { state: string }).state).toBe('ended');
      },
      { timeout: 20_000, interval: 50 },
    );
    const late = await platform.click(policy.id, 'approve', 'alice');
    expect(late.reply).toMatch(/This turn has ended/);
    await nobodyElseSees(platform, /This turn has ended/);
    const later = await platform.personPosts('thanks');
    await host.next('message', (a) => a.messageId === later.messageId);
    expect(host.seen.filter((a) => a.type !== 'message')).toEqual([]);
  });
});
