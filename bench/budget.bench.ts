/**
 * The edit budget at scale: CPU per agent event at 100, 1,000 and 10,000
 * live turns at agent pace (each turn sends an event every 0.5–3 s, seeded)
 * over 100 Google Chat spaces, with the default Google Chat budget.
 *
 * 1. The budget actor alone (machines/budget.machine.ts on a HeapClock),
 *    asked by stand-in turns that follow the turn machine's protocol: a
 *    pending entry waits out the 1 s edit debounce, then asks; `granted`
 *    edits (everything pending) at once; `refused` asks again after
 *    `retryInMs`; an unanswered request waits (the budget wakes it). Run side
 *    by side with the budget as it was before it stopped polling
 *    (bench/budget/legacy/), on the same seeded workload.
 * 2. The runtime end to end (ingest → space → turn → budget → surface) on a
 *    surface that keeps nothing: the turns are opened and sent their first
 *    tool call, and the clock runs until every turn's card is posted (not
 *    timed: the posts draw from the same budget, and in the window they
 *    would crowd out the edits it measures); then tool calls and results
 *    arrive at agent pace.
 *
 * The number that matters is the ratio within one run: CPU per event at
 * 1,000 and 10,000 live turns over CPU per event at 100. A case over its CPU
 * cap stops early and reports the rate of what it did.
 */
import { type AnyActorLogic, type AnyActorRef, createActor, fromCallback } from 'xstate';
import { budgetMachine } from '../machines/budget.machine.js';
import type { BudgetReplyEvent } from '../machines/budget.protocol.js';
import { type BudgetInput, budgetDefaults } from '../src/budget/config.js';
import { createBudgetImplementations } from '../src/budget/implementations.js';
import { budgetMachineInput } from '../src/budget/machine-input.js';
import type { TurnlogConfigInput } from '../src/config.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { createMemoryStore } from '../src/store/memory.js';
import { budgetMachine as legacyBudgetMachine } from './budget/legacy/budget.machine.js';
import { createBudgetImplementations as createLegacyImplementations } from './budget/legacy/implementations.js';
import { startBenchRuntime } from './runtime/harness.js';
import { HeapClock } from './runtime/heap-clock.js';
import { count, cpuSeconds, printTable, progress } from './runtime/report.js';
import { seeded } from './runtime/seeded.js';
import { forgetfulSurface } from './runtime/surfaces.js';
import { openOnInbound, planTurns } from './runtime/workload.js';

const SPACES = 100;
const SIZES = [100, 1_000, 10_000];
const EDIT_DEBOUNCE_MS = 1000;
/** Simulated time each case runs (timed from the first event). */
const SIMULATED_MS = 20_000;
/** CPU seconds a case may take before it stops and reports what it did. */
const CAP_S = 15;

/** 0.5–3 s between a turn's events. */
const agentGap = (random: () => number): number => 500 + Math.floor(random() * 2500);

// ------------------------------------------------------------------ 1. the budget actor alone

type TurnMode = 'idle' | 'debouncing' | 'requesting' | 'refused';

interface StandInTurn {
  id: string;
  channel: string;
  mode: TurnMode;
  pending: number;
  ref: AnyActorRef;
}

interface ActorCaseResult {
  events: number;
  requests: number;
  granted: number;
  refused: number;
  cpuS: number;
  capped: boolean;
}

/** The logic under a clock, and its input from the platform's budget numbers (the legacy machine took them as they are). */
interface BudgetLogicFactory {
  (now: () => number): AnyActorLogic;
  input: (input: BudgetInput) => unknown;
}
const withInput = (logic: (now: () => number) => AnyActorLogic, input: (input: BudgetInput) => unknown) =>
  Object.assign(logic, { input });

function budgetActorCase(logic: BudgetLogicFactory, turns: number): ActorCaseResult {
  const clock = new HeapClock();
  const budget = createActor(
    logic(() => clock.now()),
    { clock, input: logic.input(budgetDefaults('gchat', builtinPlatforms)) },
  ).start();
  const random = seeded(14);
  let events = 0;
  let requests = 0;
  let granted = 0;
  let refused = 0;
  const ask = (turn: StandInTurn): void => {
    turn.mode = 'requesting';
    requests++;
    budget.send({
      type: 'budget.progress.request',
      cardId: turn.id,
      channel: turn.channel,
      replyTo: turn.ref,
    });
  };
  const onReply = (turn: StandInTurn, reply: BudgetReplyEvent): void => {
    if (turn.mode !== 'requesting') return;
    if (reply.type === 'budget.granted') {
      granted++;
      turn.pending = 0;
      turn.mode = 'idle';
    } else if (reply.type === 'budget.refused') {
      refused++;
      turn.mode = 'refused';
      clock.setTimeout(() => ask(turn), reply.retryInMs);
    }
  };
  const all: StandInTurn[] = Array.from({ length: turns }, (_, i) => {
    const turn = {
      id: `T${i}`,
      channel: `gchat:spaces/S${i % SPACES}:thread-${i}`,
      mode: 'idle' as TurnMode,
      pending: 0,
    } as StandInTurn;
    turn.ref = createActor(
      fromCallback<BudgetReplyEvent>(({ receive }) => receive((reply) => onReply(turn, reply))),
    ).start();
    return turn;
  });
  const agentEvent = (turn: StandInTurn): void => {
    events++;
    turn.pending++;
    if (turn.mode === 'idle') {
      turn.mode = 'debouncing';
      clock.setTimeout(() => ask(turn), EDIT_DEBOUNCE_MS);
    }
    clock.setTimeout(() => agentEvent(turn), agentGap(random));
  };
  for (const turn of all) clock.setTimeout(() => agentEvent(turn), Math.floor(random() * 3000));
  const start = cpuSeconds();
  let capped = false;
  for (let t = 0; t < SIMULATED_MS && !capped; t += 100) {
    clock.increment(100);
    capped = cpuSeconds() - start > CAP_S;
  }
  const cpuS = cpuSeconds() - start;
  budget.stop();
  for (const turn of all) turn.ref.stop();
  return { events, requests, granted, refused, cpuS, capped };
}

function budgetActorPhase(): void {
  const contenders: Array<{ name: string; logic: BudgetLogicFactory }> = [
    {
      name: 'before (polls)',
      logic: withInput(
        (now) => legacyBudgetMachine.provide(createLegacyImplementations({ now })) as AnyActorLogic,
        (input) => input,
      ),
    },
    {
      name: 'now',
      logic: withInput(
        (now) => budgetMachine.provide(createBudgetImplementations({ now })) as AnyActorLogic,
        budgetMachineInput,
      ),
    },
  ];
  const rows: string[][] = [];
  for (const contender of contenders) {
    progress(`budget actor, ${contender.name}: warm-up`);
    budgetActorCase(contender.logic, 100);
    let base = Number.NaN;
    for (const size of SIZES) {
      progress(`budget actor, ${contender.name}: ${count(size)} live turns`);
      const r = budgetActorCase(contender.logic, size);
      const perEvent = (r.cpuS / Math.max(1, r.events)) * 1e6;
      if (size === SIZES[0]) base = perEvent;
      rows.push([
        contender.name,
        count(size),
        `${count(r.events)}${r.capped ? ' (capped)' : ''}`,
        (r.requests / Math.max(1, r.events)).toFixed(2),
        count(r.granted),
        count(r.refused),
        r.cpuS.toFixed(2),
        perEvent.toFixed(1),
        (perEvent / base).toFixed(2),
      ]);
    }
  }
  console.log(
    `### the budget actor alone: stand-in turns, an event every 0.5–3 s each, ${SPACES} spaces, ` +
      `default Google Chat budget; ${SIMULATED_MS / 1000} s simulated (cap ${CAP_S} CPU s)\n`,
  );
  printTable(
    [
      'budget',
      'live turns',
      'events',
      'requests/event',
      'granted',
      'refused',
      'CPU s',
      'µs/event',
      'vs 100 turns',
    ],
    rows,
  );
}

// ------------------------------------------------------------------ 2. the runtime end to end

/** CPU seconds the timed part of an end-to-end case may take. */
const RUNTIME_CAP_S = 25;
const TICK_MS = 100;
/** Simulated time the untimed warm-up may take to post every turn's card. */
const WARMUP_LIMIT_MS = 30 * 60_000;

export interface RuntimeCaseOptions {
  /** Simulated time the measured window runs (ms). Default SIMULATED_MS. */
  simulatedMs?: number;
  /** The runtime's config (a smaller budget, say). Default: the defaults. */
  config?: TurnlogConfigInput;
  /** Progress lines on stderr. Default true. */
  progress?: boolean;
  /** Simulated time the warm-up may take to post every card before the case gives up (ms). Default WARMUP_LIMIT_MS. */
  warmupLimitMs?: number;
}

export interface RuntimeCaseResult {
  /** Events ingested in the measured window. */
  events: number;
  /** CPU seconds of the measured window. */
  cpuS: number;
  /** Surface edits in the measured window. */
  edits: number;
  /** Surface posts in the measured window. */
  posts: number;
  /** Surface posts before the measured window (the cards). */
  warmupPosts: number;
  /** Simulated ms from the turns' first events until every card was posted (not measured). */
  warmupMs: number;
  capped: boolean;
}

export async function runtimeCase(turns: number, opts: RuntimeCaseOptions = {}): Promise<RuntimeCaseResult> {
  const simulatedMs = opts.simulatedMs ?? SIMULATED_MS;
  const report = opts.progress === false ? () => {} : progress;
  // The memory store's run record scans every record on each append once more turns than its cap
  // (1,000) are live (src/store/memory.ts, appendEvent): a store cost, not the budget's, so it is lifted here.
  const bench = await startBenchRuntime(forgetfulSurface(), {
    store: createMemoryStore({ turnsWithEvents: 4 * turns }),
    ...(opts.config === undefined ? {} : { config: opts.config }),
  });
  const plans = planTurns(turns, SPACES, (_, n) => `u${n}`);
  const random = seeded(14);
  const sent = new Array<number>(turns).fill(0);
  /** Turn i's next event: a tool call, then its result, and so on. */
  const agentStep = (i: number): Record<string, unknown> => {
    const plan = plans[i]!;
    const n = sent[i]!++;
    const callId = `c${n >> 1}`;
    return n % 2 === 0
      ? {
          type: 'tool_call',
          space: plan.space,
          turnId: plan.turnId,
          callId,
          tool: 'Read',
          input: { path: `src/m${n}.ts` },
        }
      : {
          type: 'tool_result',
          space: plan.space,
          turnId: plan.turnId,
          callId,
          tool: 'Read',
          ok: true,
          output: `export const v${n} = ${n};`,
        };
  };
  // Not measured, as it happens once per turn: opening every turn, then its first event, which posts
  // its card. The posts draw from the same budget as the edits (at 1,000 turns the default Google Chat
  // budget takes ~26 s simulated for them), so the window opens only once every card is up.
  for (const plan of plans) for (const event of openOnInbound(plan)) bench.ingest(event);
  await bench.advance(TICK_MS);
  for (let i = 0; i < turns; i++) bench.ingest(agentStep(i));
  const warmupLimitMs = opts.warmupLimitMs ?? WARMUP_LIMIT_MS;
  const warmupFrom = bench.clock.now();
  for (let waited = 0; bench.surface.writes.post < turns; waited += TICK_MS) {
    if (waited >= warmupLimitMs) {
      throw new Error(
        `budget bench: ${bench.surface.writes.post} of ${turns} cards posted after ${warmupLimitMs / 1000} s ` +
          `simulated of warm-up; the measured window would count posts, not edits`,
      );
    }
    await bench.advance(TICK_MS);
    if (waited % 10_000 === 0 && waited > 0)
      report(`  ${count(turns)} turns, warm-up: ${count(bench.surface.writes.post)} cards posted`);
  }
  // Each turn's next event, bucketed by tick: O(1) to find who is due.
  const ticks = Math.ceil(simulatedMs / TICK_MS);
  const due: number[][] = Array.from({ length: ticks + 1 }, () => []);
  for (let i = 0; i < turns; i++) due[Math.floor((random() * 3000) / TICK_MS)]!.push(i);
  const warmupMs = bench.clock.now() - warmupFrom;
  const editsBefore = bench.surface.writes.edit;
  const postsBefore = bench.surface.writes.post;
  const timedFrom = cpuSeconds();
  const over = () => cpuSeconds() - timedFrom > RUNTIME_CAP_S;
  const eventsBefore = bench.ingested;
  let capped = false;
  for (let tick = 0; tick < ticks && !capped; tick++) {
    for (const i of due[tick]!) {
      bench.ingest(agentStep(i));
      const next = tick + Math.max(1, Math.round(agentGap(random) / TICK_MS));
      if (next <= ticks) due[next]!.push(i);
    }
    due[tick] = [];
    await bench.advance(TICK_MS);
    capped = over();
    if (tick % 50 === 49)
      report(
        `  ${count(turns)} turns: ${((tick + 1) * TICK_MS) / 1000} s simulated, ${count(bench.ingested - eventsBefore)} events`,
      );
  }
  const result = {
    events: bench.ingested - eventsBefore,
    cpuS: cpuSeconds() - timedFrom,
    edits: bench.surface.writes.edit - editsBefore,
    posts: bench.surface.writes.post - postsBefore,
    warmupPosts: postsBefore,
    warmupMs,
    capped,
  };
  await bench.runtime.stop();
  return result;
}

async function runtimePhase(): Promise<void> {
  progress('runtime end to end: warm-up');
  await runtimeCase(100);
  const rows: string[][] = [];
  let base = Number.NaN;
  for (const size of SIZES) {
    progress(`runtime end to end: ${count(size)} live turns`);
    const r = await runtimeCase(size);
    const perEvent = (r.cpuS / Math.max(1, r.events)) * 1e6;
    if (size === SIZES[0]) base = perEvent;
    rows.push([
      count(size),
      `${count(r.events)}${r.capped ? ' (capped)' : ''}`,
      count(r.edits),
      count(r.posts),
      `${count(r.warmupPosts)} in ${(r.warmupMs / 1000).toFixed(1)} s`,
      r.cpuS.toFixed(2),
      perEvent.toFixed(1),
      (perEvent / base).toFixed(2),
    ]);
  }
  console.log(
    `\n### the runtime end to end: turns opened and their cards posted first (not timed), then a tool call or result every 0.5–3 s per turn, ` +
      `${SPACES} spaces, forgetful Google Chat surface, default budget; ${SIMULATED_MS / 1000} s simulated (cap ${RUNTIME_CAP_S} CPU s)\n`,
  );
  printTable(
    ['live turns', 'events', 'edits', 'posts', 'cards posted before', 'CPU s', 'µs/event', 'vs 100 turns'],
    rows,
  );
}

export default async function run(): Promise<void> {
  const only = process.argv.includes('--runtime-only');
  if (!only) budgetActorPhase();
  if (!process.argv.includes('--actor-only')) await runtimePhase();
}
