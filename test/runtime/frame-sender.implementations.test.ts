// Issue 21.4: the frame sender's implementations (src/runtime/frame-sender.implementations.ts) — the frame's
// own token comes from the space's budget actor: a post asks a progress token as a `post`, an edit as an
// `edit`, the terminal frame books a slot; the write waits for the answer; a 429 waited out is told to the
// budget (it cools the scope off) and a fresh token is asked after the Retry-After. Without a budget actor
// (`budget: 'unlimited'`) the token is granted at once. Real memory surface, simulated clock.
import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, fromCallback, SimulatedClock, setup } from 'xstate';
import type { BudgetInEvent } from '../../machines/budget.protocol.js';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import type { FramePolicy, FrameSenderInput } from '../../machines/frame-sender.machine.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createBudgetClient } from '../../src/runtime/budget-client.js';
import { provideFrameSender } from '../../src/runtime/frame-sender.implementations.js';
import { surfaceResolver } from '../../src/runtime/posting.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { settle } from '../machines/turn.helpers.js';

const SPACE = 'gchat:spaces/AAAA';
const policy = (token: FramePolicy['token']): FramePolicy => ({
  token,
  prepare: 'given',
  rateLimits: 'retry',
  retries: 0,
  retryDelayMs: 500,
  backoff: false,
  retryToken: true,
});

function harness(input: FrameSenderInput, budget: 'system' | 'unlimited' = 'system') {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const root = surface.inbound({ space: SPACE, text: 'please fix the build' });
  const asked: BudgetInEvent[] = [];
  let replyTo: AnyActorRef | undefined;
  const sender = provideFrameSender({
    surfaceFor: surfaceResolver(surface, builtinPlatforms),
    clock,
    budget: createBudgetClient({ platforms: builtinPlatforms, budget }),
    now: () => clock.now(),
  });
  const machine = setup({
    actors: {
      sender,
      budget: fromCallback<BudgetInEvent>(({ receive }) =>
        receive((event) => {
          asked.push(event);
          if ('replyTo' in event) replyTo = event.replyTo as AnyActorRef;
        }),
      ),
    },
  }).createMachine({
    invoke: [
      { id: 'budget', src: 'budget', systemId: budgetSystemId('gchat') },
      {
        id: 'sender',
        src: 'sender',
        input: { ...input, thread: { rootMessageId: root.messageId, threadId: root.threadId } },
      },
    ],
  });
  const actor = createActor(machine, { clock }).start();
  const writes = () => surface.calls.filter((c) => c.op === 'create' || c.op === 'update');
  const senderSnapshot = () => actor.getSnapshot().children.sender?.getSnapshot();
  return {
    clock,
    surface,
    actor,
    asked,
    writes,
    senderSnapshot,
    reply: (event: object) => replyTo?.send(event),
  };
}

const frame = { kind: 'log' as const, lines: [] };

describe('frame sender implementations: the frame’s token', () => {
  it('a post asks the space’s budget for a progress token as a post, and writes only once granted', async () => {
    const h = harness({ space: SPACE, frame, turnId: 'T1', clientId: 'T1:1', policy: policy('progress') });
    await settle();
    expect(h.asked).toMatchObject([{ type: 'budget.progress.request', cardId: 'T1', write: 'post' }]);
    expect(h.writes()).toEqual([]);
    h.reply({ type: 'budget.granted' });
    await settle();
    expect(h.writes()).toHaveLength(1);
    expect(h.senderSnapshot()?.status ?? 'done').toBe('done');
  });

  it('the terminal frame books a slot, and is written once funded', async () => {
    const h = harness({ space: SPACE, frame, turnId: 'T1', clientId: 'T1:1', policy: policy('terminal') });
    await settle();
    expect(h.asked).toMatchObject([{ type: 'budget.terminal.book', cardId: 'T1', write: 'post' }]);
    expect(h.writes()).toEqual([]);
    h.reply({ type: 'budget.funded' });
    await settle();
    expect(h.writes()).toHaveLength(1);
  });

  it('a 429 is told to the budget, and after its Retry-After a fresh token is asked before the next write', async () => {
    const h = harness({ space: SPACE, frame, turnId: 'T1', clientId: 'T1:1', policy: policy('progress') });
    h.surface.fail({ op: 'create', status: 429, times: 1, retryAfterS: 2 });
    await settle();
    h.reply({ type: 'budget.granted' });
    await settle();
    expect(h.asked.map((e) => e.type)).toEqual(['budget.progress.request', 'budget.rate-limited']);
    expect(h.asked[1]).toMatchObject({ retryAfterMs: 2000 });
    h.clock.increment(1999);
    await settle();
    expect(h.asked).toHaveLength(2);
    h.clock.increment(1);
    await settle();
    expect(h.asked.map((e) => e.type)).toEqual([
      'budget.progress.request',
      'budget.rate-limited',
      'budget.progress.request',
    ]);
    h.reply({ type: 'budget.granted' });
    await settle();
    expect(h.surface.calls.filter((c) => c.op === 'create' && c.status === 200)).toHaveLength(1);
  });

  it('without a budget actor the token is granted at once', async () => {
    const h = harness(
      { space: SPACE, frame, turnId: 'T1', clientId: 'T1:1', policy: policy('terminal') },
      'unlimited',
    );
    await settle();
    expect(h.asked).toEqual([]);
    expect(h.writes()).toHaveLength(1);
  });
});
