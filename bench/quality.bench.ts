/**
 * `npm run bench -- quality`: what a person in the thread gets, side by side,
 * from three ways of showing the same agent traces (bench/quality/trace.ts),
 * on the same simulated clock and under the same per-space quota:
 *
 * - naive: one post per event;
 * - fixed window: the design turnlog's Google Chat seed started from — a
 *   1 s window buffers the turn's lines, then one edit of the turn's message
 *   (a post for the first); past 3,500 characters the message is finished
 *   with "• …log continues" and a new one is posted (rollover); a write the
 *   platform refuses is retried at the next window;
 * - turnlog: the real `createRuntime` on a memory surface with the
 *   platform's capabilities.
 *
 * The surface enforces the quota (a sliding 60 s window per space): a write
 * over it is refused with a 429. Columns: notifications (new messages) and
 * writes per turn, most writes in any 60 s in one space, 429s, turns whose
 * final messages miss a tool call or the answer ("stale final frames"), lag
 * from a tool call (or the answer) to the first landed write that shows it,
 * and characters shown per turn (final texts).
 */

import { plainText } from '../src/surfaces/frame.js';
import { type ChatSurface, type PostedMessage, SurfaceError } from '../src/surfaces/surface.js';
import { createMemorySurface } from '../src/testing/memory-surface.js';
import { generateTurn, type TraceEvent, type TurnTrace } from './quality/trace.js';
import { startBenchRuntime } from './runtime/harness.js';
import { HeapClock } from './runtime/heap-clock.js';
import { count, cpuSeconds, printTable, progress } from './runtime/report.js';

type Platform = 'gchat' | 'slack' | 'discord';

interface Landed {
  at: number;
  space: string;
  message: string;
  kind: 'post' | 'edit';
  text: string;
}

interface Outcome {
  /** Writes that landed, in order. */
  landed: Landed[];
  refused: number;
  /** Each message's last landed text, by space (the people's own messages left out). */
  finalTexts: Map<string, string[]>;
}

interface Scenario {
  platform: Platform;
  turnsPerSpace: number;
  quotaPerMinute: number | null;
  traces: TurnTrace[];
}

const SPACES = 2;
const EVENTS_PER_TURN = 200;
const FIXED_WINDOW_MS = 1000;
const FIXED_MAX_CHARS = 3500;

const spaceOf = (platform: Platform, i: number): string =>
  platform === 'gchat' ? `gchat:spaces/Q${i}` : platform === 'slack' ? `slack:CQ${i}` : `discord:${900 + i}`;

/** A sliding 60 s window of writes per space: true when one more is allowed at `at`. */
function createQuota(perMinute: number | null) {
  const times = new Map<string, number[]>();
  return (space: string, at: number): boolean => {
    if (perMinute === null) return true;
    const list = (times.get(space) ?? []).filter((t) => t > at - 60_000);
    if (list.length >= perMinute) {
      times.set(space, list);
      return false;
    }
    list.push(at);
    times.set(space, list);
    return true;
  };
}

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 19);

function lineOf(e: TraceEvent): string | null {
  const ev = e.event;
  switch (ev.type) {
    case 'tool_call':
      return `• ${clockTime(e.at)}  ${ev.tool}: ${(ev.input as { path: string }).path}`;
    case 'tool_result':
      return `  ${ev.ok ? '✓' : '✗'} ${ev.tool}: ${String(ev.output).slice(0, 200)}`;
    case 'subagent':
      return `• ${clockTime(e.at)}  subagent ${ev.subagentId} ${ev.status}`;
    default:
      return null;
  }
}

function allEvents(traces: readonly TurnTrace[]): TraceEvent[] {
  return traces.flatMap((t) => t.events).sort((a, b) => a.at - b.at);
}

// ------------------------------------------------------------------ naive

function naive(s: Scenario): Outcome {
  const allowed = createQuota(s.quotaPerMinute);
  const landed: Landed[] = [];
  const finalTexts = new Map<string, string[]>();
  let refused = 0;
  let id = 0;
  for (const e of allEvents(s.traces)) {
    const space = e.event.space as string;
    const text = e.event.type === 'answer' ? String(e.event.text) : lineOf(e);
    if (text === null) continue;
    if (!allowed(space, e.at)) {
      refused++;
      continue;
    }
    landed.push({ at: e.at, space, message: `n${id++}`, kind: 'post', text });
    finalTexts.set(space, [...(finalTexts.get(space) ?? []), text]);
  }
  return { landed, refused, finalTexts };
}

// ------------------------------------------------------------------ fixed window

interface WindowTurn {
  space: string;
  turnId: string;
  /** Lines of the current message, and how many of them have landed. */
  lines: string[];
  landedLines: number;
  message: string | null;
  flushAt: number | null;
  texts: string[];
}

function fixedWindow(s: Scenario, maxChars: number): Outcome {
  const allowed = createQuota(s.quotaPerMinute);
  const landed: Landed[] = [];
  let refused = 0;
  let id = 0;
  const turns = new Map<string, WindowTurn>();
  const write = (turn: WindowTurn, at: number, text: string, kind: 'post' | 'edit'): boolean => {
    if (!allowed(turn.space, at)) {
      refused++;
      return false;
    }
    if (kind === 'post') {
      turn.message = `w${id++}`;
      turn.texts.push(text);
    } else turn.texts[turn.texts.length - 1] = text;
    landed.push({ at, space: turn.space, message: turn.message!, kind, text });
    return true;
  };
  const flush = (turn: WindowTurn, at: number): void => {
    turn.flushAt = null;
    if (turn.landedLines === turn.lines.length) return;
    let text = turn.lines.join('\n');
    let carry: string[] = [];
    if (text.length > maxChars) {
      // Rollover: finish this message with what fits, carry the rest into a new one.
      const keep: string[] = [];
      let size = '• …log continues'.length;
      for (const line of turn.lines) {
        if (size + line.length + 1 > maxChars && keep.length > 0) break;
        keep.push(line);
        size += line.length + 1;
      }
      carry = turn.lines.slice(keep.length);
      text = `${keep.join('\n')}\n• …log continues`;
    }
    if (!write(turn, at, text.slice(0, maxChars), turn.message === null ? 'post' : 'edit')) {
      turn.flushAt = at + FIXED_WINDOW_MS;
      return;
    }
    if (carry.length > 0) {
      turn.lines = carry;
      turn.landedLines = 0;
      turn.message = null;
      turn.flushAt = at + FIXED_WINDOW_MS;
    } else turn.landedLines = turn.lines.length;
  };
  const events = allEvents(s.traces);
  const due = () =>
    [...turns.values()].filter((t) => t.flushAt !== null).sort((a, b) => a.flushAt! - b.flushAt!);
  const runFlushesUntil = (until: number) => {
    for (let next = due()[0]; next && next.flushAt! <= until; next = due()[0]) flush(next, next.flushAt!);
  };
  for (const e of events) {
    runFlushesUntil(e.at);
    const turnId = e.event.turnId as string;
    const space = e.event.space as string;
    let turn = turns.get(turnId);
    if (!turn) {
      turn = { space, turnId, lines: [], landedLines: 0, message: null, flushAt: null, texts: [] };
      turns.set(turnId, turn);
    }
    if (e.event.type === 'answer') {
      flush(turn, e.at);
      const answer = String(e.event.text);
      if (allowed(space, e.at)) {
        landed.push({ at: e.at, space, message: `w${id++}`, kind: 'post', text: answer });
        turn.texts.push(answer);
      } else refused++;
      continue;
    }
    if (e.event.type === 'turn_ended') {
      flush(turn, e.at);
      continue;
    }
    const line = lineOf(e);
    if (line === null) continue;
    turn.lines.push(line);
    turn.flushAt ??= e.at + FIXED_WINDOW_MS;
  }
  runFlushesUntil(Number.POSITIVE_INFINITY);
  const finalTexts = new Map<string, string[]>();
  for (const t of turns.values()) finalTexts.set(t.space, [...(finalTexts.get(t.space) ?? []), ...t.texts]);
  return { landed, refused, finalTexts };
}

// ------------------------------------------------------------------ turnlog

/** A memory surface that enforces the quota and records every write that landed. */
function quotaSurface(
  inner: ChatSurface,
  clock: HeapClock,
  quota: (space: string, at: number) => boolean,
  landed: Landed[],
  onRefused: () => void,
): ChatSurface {
  const gate = (space: string) => {
    if (!quota(space, clock.now())) {
      onRefused();
      throw new SurfaceError('rate-limited', 'quota: too many writes in this space', {
        status: 429,
        retryAfterMs: 1000,
      });
    }
  };
  return {
    platform: inner.platform,
    capabilities: inner.capabilities,
    async post(req, opts): Promise<PostedMessage> {
      gate(req.space);
      const posted = await inner.post(req, opts);
      landed.push({
        at: clock.now(),
        space: req.space,
        message: posted.messageId,
        kind: 'post',
        text: plainText(req.frame),
      });
      return posted;
    },
    async edit(req, opts) {
      gate(req.space);
      await inner.edit(req, opts);
      landed.push({
        at: clock.now(),
        space: req.space,
        message: req.messageId,
        kind: 'edit',
        text: plainText(req.frame),
      });
    },
    async react(req, opts) {
      gate(req.space);
      await inner.react(req, opts);
    },
  };
}

async function turnlog(s: Scenario): Promise<Outcome> {
  const clock = new HeapClock();
  const memory = createMemorySurface({ platform: s.platform, now: () => clock.now() });
  const landed: Landed[] = [];
  let refused = 0;
  const surface = quotaSurface(memory, clock, createQuota(s.quotaPerMinute), landed, () => refused++);
  const bench = await startBenchRuntime(surface, { clock });
  // The person's messages the turns answer.
  const roots = new Map<string, { messageId: string; threadId: string }>();
  for (const t of s.traces) {
    const posted = memory.inbound({ space: t.space, text: `please look (${t.turnId})` });
    roots.set(t.turnId, { messageId: posted.messageId, threadId: posted.threadId });
  }
  const events = allEvents(s.traces);
  let i = 0;
  const end = events.at(-1)!.at;
  while (i < events.length) {
    const next = events[i]!.at;
    if (next > clock.now()) await bench.advance(next - clock.now());
    for (; i < events.length && events[i]!.at <= clock.now(); i++) {
      const { event } = events[i]!;
      bench.ingest(
        event.type === 'turn_started' ? { ...event, root: roots.get(event.turnId as string) } : event,
      );
    }
  }
  await bench.advance(Math.max(0, end - clock.now()));
  await bench.drain();
  await bench.runtime.stop();
  // The people's own messages are not something the contender showed.
  const people = new Set([...roots.values()].map((root) => root.messageId));
  const finalTexts = new Map<string, string[]>();
  for (const space of new Set(s.traces.map((t) => t.space))) {
    const shown = memory.messages(space).filter((m) => !m.deleted && !people.has(m.id));
    finalTexts.set(
      space,
      shown.map((m) => m.text),
    );
  }
  return { landed, refused, finalTexts };
}

// ------------------------------------------------------------------ the table

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function measure(s: Scenario, o: Outcome): string[] {
  const turns = s.traces.length;
  const posts = o.landed.filter((w) => w.kind === 'post').length;
  // Most writes in any 60 s window, per space.
  let most = 0;
  for (const space of new Set(s.traces.map((t) => t.space))) {
    const times = o.landed.filter((w) => w.space === space).map((w) => w.at);
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[start]! <= times[end]! - 60_000) start++;
      most = Math.max(most, end - start + 1);
    }
  }
  // Lag: from each marked event to the first landed write at or after it that shows its marker.
  const lags: number[] = [];
  let neverShown = 0;
  let stale = 0;
  for (const t of s.traces) {
    const writes = o.landed.filter((w) => w.space === t.space);
    const finals = (o.finalTexts.get(t.space) ?? []).join('\n');
    let missing = false;
    for (const e of t.events) {
      if (!e.marker) continue;
      const first = writes.find((w) => w.at >= e.at && w.text.includes(e.marker!));
      if (first) lags.push(first.at - e.at);
      else neverShown++;
      if (!finals.includes(e.marker)) missing = true;
    }
    if (missing) stale++;
  }
  lags.sort((a, b) => a - b);
  const chars = [...o.finalTexts.values()].reduce(
    (n, texts) => n + texts.reduce((m, x) => m + x.length, 0),
    0,
  );
  const s1 = (ms: number) => (Number.isNaN(ms) ? '–' : (ms / 1000).toFixed(1));
  return [
    (posts / turns).toFixed(1),
    (o.landed.length / turns).toFixed(1),
    count(most),
    count(o.refused),
    count(stale),
    `${s1(percentile(lags, 50))} / ${s1(percentile(lags, 95))} / ${s1(lags.at(-1) ?? Number.NaN)}${neverShown > 0 ? ` (${count(neverShown)} never)` : ''}`,
    count(chars / turns),
  ];
}

export default async function run(): Promise<void> {
  const platforms: Platform[] = ['gchat', 'slack', 'discord'];
  const rows: string[][] = [];
  const started = cpuSeconds();
  for (const platform of platforms) {
    for (const turnsPerSpace of [1, 10]) {
      const traces: TurnTrace[] = [];
      for (let sp = 0; sp < SPACES; sp++) {
        for (let k = 0; k < turnsPerSpace; k++) {
          const n = sp * turnsPerSpace + k;
          // Turns in a space start 20 s apart, so ten of them overlap.
          traces.push(
            generateTurn(1000 + n, `T${n}`, spaceOf(platform, sp), 1_000_000 + k * 20_000, EVENTS_PER_TURN),
          );
        }
      }
      for (const quotaPerMinute of [null, 60]) {
        const s: Scenario = { platform, turnsPerSpace, quotaPerMinute, traces };
        const label = [
          platform,
          String(turnsPerSpace),
          quotaPerMinute === null ? 'none' : `${quotaPerMinute}/min`,
        ];
        progress(`quality: ${label.join(', ')} (${(cpuSeconds() - started).toFixed(1)} CPU s so far)`);
        const maxChars = Math.min(
          FIXED_MAX_CHARS,
          createMemorySurface({ platform }).capabilities.maxChars - 100,
        );
        rows.push([...label, 'naive', ...measure(s, naive(s))]);
        rows.push([...label, 'fixed window', ...measure(s, fixedWindow(s, maxChars))]);
        rows.push([...label, 'turnlog', ...measure(s, await turnlog(s))]);
      }
    }
  }
  console.log(
    `${EVENTS_PER_TURN}-event seeded traces (bench/quality/trace.ts), ${SPACES} spaces; "never" counts marked events no landed write showed.\n`,
  );
  printTable(
    [
      'platform',
      'turns/space',
      'quota',
      'contender',
      'notifications/turn',
      'writes/turn',
      'most writes in 60 s/space',
      '429s',
      'stale final frames',
      'lag p50 / p95 / max (s)',
      'chars shown/turn',
    ],
    rows,
  );
}
