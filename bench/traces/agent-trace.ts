/**
 * A deterministic generator of agent turns, for benchmarks and the tests
 * that hold their numbers: the same seed gives the same events at the same
 * times. A turn looks like a coding agent's: think gaps with a few words of
 * assistant text, bursts of tool calls issued together whose results come
 * back out of order, long tools (a build, a test run), large multi-line
 * outputs, occasional failures, and subagents running tools of their own.
 */

/** One event of a trace and when (ms after the trace's start) the host sends it. */
export interface TimedEvent {
  at: number;
  event: Record<string, unknown>;
}

export interface AgentTurnOptions {
  space: string;
  turnId: string;
  /** The id of the person's message the turn answers. */
  rootId: string;
  seed: number;
  /** Events in the turn, lifecycle included (at least 10). Default 200. */
  events?: number;
  /** When (ms) the person's message arrives. Default 0. */
  startAt?: number;
}

/** mulberry32: a small seeded PRNG with a full 2^32 period. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = ['src/app.ts', 'src/db/schema.ts', 'src/api/routes.ts', 'test/app.test.ts', 'README.md'];
const PATTERNS = ['TODO', 'export function', 'useEffect', 'SELECT', 'throw new'];
const COMMANDS = ['npm test', 'npm run build', 'npx tsc --noEmit', 'git status', 'ls src'];
const THOUGHTS = [
  'Let me look at how the routes are wired.',
  'The failing test points at the schema; checking it.',
  'I will run the tests again after this change.',
  'Now updating the call sites.',
];

interface ToolPlan {
  tool: string;
  input: Record<string, unknown>;
  durationMs: number;
  ok: boolean;
  exitCode?: number;
  output: string;
}

/** `lines` lines of plausible output (a large output when `lines` is large). */
function outputLines(random: () => number, first: string, lines: number): string {
  const rest = Array.from(
    { length: lines - 1 },
    (_, i) => `  ${i + 1}: ${'x'.repeat(20 + Math.floor(random() * 60))}`,
  );
  return [first, ...rest].join('\n');
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function planTool(random: () => number): ToolPlan {
  const roll = random();
  if (roll < 0.3) {
    const path = pick(random, FILES);
    const lines = 20 + Math.floor(random() * 400);
    return {
      tool: 'Read',
      input: { file_path: path },
      durationMs: 50 + Math.floor(random() * 300),
      ok: true,
      output: outputLines(random, `// ${path}`, lines),
    };
  }
  if (roll < 0.55) {
    const matches = Math.floor(random() * 40);
    return {
      tool: 'Grep',
      input: { pattern: pick(random, PATTERNS) },
      durationMs: 100 + Math.floor(random() * 500),
      ok: true,
      output: matches === 0 ? 'No matches' : `${matches} matches`,
    };
  }
  if (roll < 0.7) {
    const ok = random() > 0.05;
    return {
      tool: 'Edit',
      input: { file_path: pick(random, FILES) },
      durationMs: 50 + Math.floor(random() * 200),
      ok,
      output: ok ? 'Applied 1 edit' : 'old_string not found in file',
    };
  }
  const command = pick(random, COMMANDS);
  const long = command.startsWith('npm');
  const failed = random() < 0.15;
  const failing = 1 + Math.floor(random() * 5);
  return {
    tool: 'Bash',
    input: { command },
    // Long tools: a build or a test run takes tens of seconds.
    durationMs: long ? 15_000 + Math.floor(random() * 75_000) : 200 + Math.floor(random() * 2_000),
    ok: !failed,
    ...(failed ? { exitCode: 1 } : {}),
    output: failed
      ? outputLines(random, `${failing} failing`, 40 + Math.floor(random() * 200))
      : outputLines(random, 'ok', 1 + Math.floor(random() * 300)),
  };
}

/**
 * One turn: `inbound`, `turn_started`, then think/burst cycles (sometimes a
 * subagent's), then `answer` and `turn_ended`; exactly `events` events, in
 * time order.
 */
export function agentTurn(opts: AgentTurnOptions): TimedEvent[] {
  const { space, turnId, rootId } = opts;
  const total = opts.events ?? 200;
  if (!Number.isInteger(total) || total < 10) {
    throw new RangeError(`agentTurn: events must be an integer ≥ 10, got ${String(total)}`);
  }
  const random = seededRandom(opts.seed);
  const events: TimedEvent[] = [];
  let now = opts.startAt ?? 0;
  const scoped = { space, turnId };
  events.push({
    at: now,
    event: { type: 'inbound', space, messageId: rootId, threadId: rootId, ref: turnId },
  });
  events.push({ at: now + 5, event: { type: 'turn_started', ...scoped, rootRef: turnId } });
  now += 800;
  let call = 0;
  let subagents = 0;
  // Two events are kept for the answer and turn_ended.
  const budget = total - 2;
  const room = () => budget - events.length;

  while (room() > 0) {
    // A think gap, sometimes with a few words.
    now += 1_000 + Math.floor(random() * 8_000);
    if (random() < 0.25 && room() > 0) {
      events.push({ at: now, event: { type: 'assistant', ...scoped, text: pick(random, THOUGHTS) } });
    }
    const inSubagent = random() < 0.12 && room() >= 4;
    const subagent = inSubagent ? { subagentId: `${turnId}-sa${++subagents}` } : {};
    if (inSubagent) {
      events.push({
        at: now,
        event: { type: 'subagent', ...scoped, ...subagent, name: 'explorer', status: 'started' },
      });
    }
    // A burst: calls issued together, results back as each tool finishes.
    const burst = 1 + Math.floor(random() * (random() < 0.3 ? 6 : 3));
    const results: TimedEvent[] = [];
    for (let i = 0; i < burst && room() - results.length - (inSubagent ? 1 : 0) >= 2; i++) {
      const plan = planTool(random);
      const callId = `${turnId}-c${++call}`;
      const at = now + i * 20;
      events.push({
        at,
        event: { type: 'tool_call', ...scoped, ...subagent, callId, tool: plan.tool, input: plan.input },
      });
      results.push({
        at: at + plan.durationMs,
        event: {
          type: 'tool_result',
          ...scoped,
          ...subagent,
          callId,
          tool: plan.tool,
          ok: plan.ok,
          ...(plan.exitCode === undefined ? {} : { exitCode: plan.exitCode }),
          output: plan.output,
        },
      });
    }
    results.sort((a, b) => a.at - b.at);
    events.push(...results);
    now = Math.max(now, ...results.map((r) => r.at));
    if (inSubagent) {
      now += 300;
      events.push({
        at: now,
        event: { type: 'subagent', ...scoped, ...subagent, name: 'explorer', status: 'done' },
      });
    }
    // Fill a last odd slot with a thought rather than leave the count short.
    if (room() === 1)
      events.push({ at: now + 100, event: { type: 'assistant', ...scoped, text: 'Wrapping up.' } });
  }
  now += 2_000;
  events.push({ at: now, event: { type: 'answer', ...scoped, text: `Done: ${turnId}.` } });
  events.push({ at: now + 10, event: { type: 'turn_ended', ...scoped, outcome: 'ok' } });
  return events;
}

/** `count` turns in one space, one after another (the next person's message comes after the last answer). */
export function turnsInOneSpace(opts: {
  space: string;
  count: number;
  seed: number;
  events?: number;
  gapMs?: number;
}): TimedEvent[] {
  const all: TimedEvent[] = [];
  let startAt = 0;
  for (let n = 0; n < opts.count; n++) {
    const turn = agentTurn({
      space: opts.space,
      turnId: `T${n}`,
      rootId: `u${n}`,
      seed: opts.seed + n,
      startAt,
      ...(opts.events === undefined ? {} : { events: opts.events }),
    });
    all.push(...turn);
    startAt = turn[turn.length - 1]!.at + (opts.gapMs ?? 20_000);
  }
  return all;
}
