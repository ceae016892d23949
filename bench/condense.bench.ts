/**
 * Per-event cost of keeping a turn's log (append + render, and starting the
 * next message after a rollover, as the turn actor does on every flush) at
 * 10, 1,000 and 10,000 entries into one turn, incremental (`TurnLogState`)
 * versus naive: `condenseTurnLog` over every entry of the open message, the
 * way the reference spec's TurnContext keeps them.
 *
 * "µs/event at N" is the mean cost of the events that bring the turn to N
 * entries (the last min(N, 100) of them), the best of several runs (the
 * machine is shared; the fastest run is the least disturbed one). The
 * state up to that point is built untimed; the naive list is the same
 * entries the incremental log says the open message holds.
 */
import { condenseTurnLog } from '../src/turnlog/condense.js';
import { formatTurnLogEntry } from '../src/turnlog/format.js';
import {
  appendEntry,
  createTurnLog,
  messageEntryCount,
  renderTurnLog,
  startNextMessage,
  type TurnLogState,
} from '../src/turnlog/log.js';
import { CONDENSE_STRATEGIES, type CondenseOpts, type TurnLogEntry } from '../src/turnlog/types.js';

const SIZES = [10, 1_000, 10_000] as const;
const MAX_CHARS = 3500;
const TIMED_EVENTS = 100;

/** A deterministic mix like a coding turn: short calls and results, the odd long command or output. */
function turnEntries(count: number): TurnLogEntry[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const space = 'slack:C0123ABCD';
  const turnId = 'T1';
  const at = Date.UTC(2024, 4, 1, 12, 0, 0);
  const entries: TurnLogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const common = { space, turnId, at: at + i * 700, seq: i + 1 };
    const event =
      roll < 0.4
        ? {
            ...common,
            type: 'tool_call' as const,
            callId: `c${i}`,
            tool: 'Read',
            input: { path: `src/module${i}.ts` },
          }
        : roll < 0.8
          ? {
              ...common,
              type: 'tool_result' as const,
              callId: `c${i}`,
              tool: 'bash',
              ok: random() > 0.1,
              summary: 'x'.repeat(20 + Math.floor(random() * 120)),
            }
          : roll < 0.95
            ? {
                ...common,
                type: 'tool_call' as const,
                callId: `c${i}`,
                tool: 'bash',
                input: { command: `npm run build -- ${'--flag '.repeat(Math.floor(random() * 120))}` },
              }
            : {
                ...common,
                type: 'subagent' as const,
                subagentId: `sa${i}`,
                status: 'started' as const,
                name: 'Explore',
              };
    const entry = formatTurnLogEntry(event, { timeZone: 'UTC' });
    if (entry) entries.push(entry);
  }
  return entries;
}

/** One flush per event, as the turn actor does when its debounce fires for every event. */
function incrementalEvent(state: TurnLogState, entry: TurnLogEntry, opts: CondenseOpts): TurnLogState {
  const next = appendEntry(state, entry, opts);
  return renderTurnLog(next, opts).kind === 'rollover' ? startNextMessage(next, opts) : next;
}

/** The naive log pushes onto one array (no copy) and condenses all of it. */
function naiveEvent(message: TurnLogEntry[], entry: TurnLogEntry, opts: CondenseOpts): TurnLogEntry[] {
  message.push(entry);
  const result = condenseTurnLog(message, opts);
  return result.kind === 'rollover' ? result.carryEntries : message;
}

interface Measured {
  size: number;
  incremental: number;
  naive: number;
}

/** µs/event of the events bringing the turn to `size` entries, both ways. */
function measure(entries: readonly TurnLogEntry[], size: number, opts: CondenseOpts): Omit<Measured, 'size'> {
  const timed = Math.min(size, TIMED_EVENTS);
  let state = createTurnLog();
  for (let i = 0; i < size - timed; i++) state = incrementalEvent(state, entries[i]!, opts);
  let message = entries.slice(size - timed - messageEntryCount(state), size - timed);

  let start = performance.now();
  for (let i = size - timed; i < size; i++) state = incrementalEvent(state, entries[i]!, opts);
  const incremental = ((performance.now() - start) * 1000) / timed;

  start = performance.now();
  for (let i = size - timed; i < size; i++) message = naiveEvent(message, entries[i]!, opts);
  const naive = ((performance.now() - start) * 1000) / timed;
  return { incremental, naive };
}

export default async function run(): Promise<void> {
  const entries = turnEntries(Math.max(...SIZES));
  const rows: string[][] = [];
  const ratios: string[][] = [];
  for (const strategy of CONDENSE_STRATEGIES) {
    const opts = { maxChars: MAX_CHARS, strategy };
    measure(entries, 2_000, opts); // warm up the JIT
    const perSize = SIZES.map((size): Measured => {
      const runs = Array.from({ length: 5 }, () => measure(entries, size, opts));
      return {
        size,
        incremental: Math.min(...runs.map((r) => r.incremental)),
        naive: Math.min(...runs.map((r) => r.naive)),
      };
    });
    for (const { size, incremental, naive } of perSize) {
      rows.push([
        strategy,
        size.toLocaleString('en-US'),
        incremental.toFixed(2),
        naive.toFixed(2),
        `${(naive / incremental).toFixed(1)}×`,
      ]);
    }
    const [at10, at1k, at10k] = perSize as [Measured, Measured, Measured];
    ratios.push([
      strategy,
      (at10k.incremental / at10.incremental).toFixed(2),
      (at10k.incremental / at1k.incremental).toFixed(2),
      (at10k.naive / at10.naive).toFixed(1),
      (at10k.naive / at1k.naive).toFixed(1),
    ]);
  }
  console.log(
    `maxChars ${MAX_CHARS}; µs per event (append + render + next message on rollover), best of 5 runs\n`,
  );
  printTable(['strategy', 'entries', 'incremental µs/event', 'naive µs/event', 'naive / incremental'], rows);
  // Past ~100 entries the incremental window is full (bounded by maxChars), so 10k/1k shows it flat.
  console.log('\ngrowth of the per-event cost with the turn\n');
  printTable(
    ['strategy', 'incremental 10k/10', 'incremental 10k/1k', 'naive 10k/10', 'naive 10k/1k'],
    ratios,
  );
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}
