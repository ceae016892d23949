/**
 * The run record as the page shows it: one item per event, in seq order,
 * with its depth under the subagents that emitted it, and the headline. The
 * same items are written into the HTML and sent on the event stream, so the
 * page's script shows a live event exactly as a reload would.
 */
import type { RunEvent } from '../../events/schema.js';
import { type MdBlock, parseMarkdown } from './markdown.js';

/** Outputs and inputs are shown up to this many characters (the rest is counted, not sent). */
export const MAX_DETAIL_CHARS = 8000;

export interface RunItem {
  seq: number;
  depth: number;
  kind: string;
  /** One line: what happened. */
  title: string;
  /** Short facts: exit code, duration, decision, level… */
  meta: string[];
  /** Plain text shown as is (a request, a note, an assistant message). */
  text?: string;
  /** A tool's input, JSON. */
  input?: string;
  /** A tool's or command's output, collapsed by default. */
  output?: string;
  /** Characters of the output past MAX_DETAIL_CHARS, not shown. */
  cut?: number;
  /** The final answer. */
  answer?: MdBlock[];
}

export interface RunHeadline {
  turnId: string;
  space: string;
  state: string;
  ended: boolean;
  outcome?: string;
  startedAt?: number;
  lastAt?: number;
  startedBy?: string;
}

// Bidirectional controls could make text read in another order than it is: shown as their code points.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export const visible = (text: string): string =>
  text.replace(BIDI, (c) => `<U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}>`);

function capped(text: string): { shown: string; cut?: number } {
  if (text.length <= MAX_DETAIL_CHARS) return { shown: visible(text) };
  return { shown: visible(text.slice(0, MAX_DETAIL_CHARS)), cut: text.length - MAX_DETAIL_CHARS };
}

/** Who started the turn, when the host said: a `user` string or object on its first events. */
function starterOf(event: RunEvent): string | undefined {
  const user = (event as { user?: unknown }).user;
  if (typeof user === 'string' && user !== '') return user;
  if (user !== null && typeof user === 'object') {
    const named = user as { name?: unknown; displayName?: unknown; id?: unknown };
    for (const value of [named.displayName, named.name, named.id])
      if (typeof value === 'string') return value;
  }
  return undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

export function itemsOf(events: readonly RunEvent[]): RunItem[] {
  const depthOf = new Map<string, number>();
  const callAt = new Map<string, number>();
  const items: RunItem[] = [];
  for (const event of events) {
    const seq = event.seq ?? items.length + 1;
    if (event.type === 'subagent' && event.status === 'started') {
      const parent =
        event.parentSubagentId === undefined ? 0 : (depthOf.get(event.parentSubagentId) ?? 0) + 1;
      depthOf.set(event.subagentId, parent);
    }
    const depth = event.subagentId === undefined ? 0 : (depthOf.get(event.subagentId) ?? 0) + 1;
    const item = itemOf(event, callAt);
    if (item) items.push({ seq, depth: event.type === 'subagent' ? depth - 1 : depth, ...item });
  }
  return items;
}

type ItemBody = Omit<RunItem, 'seq' | 'depth'>;

function itemOf(event: RunEvent, callAt: Map<string, number>): ItemBody | undefined {
  switch (event.type) {
    case 'inbound':
    case 'turn_started':
      return {
        kind: 'start',
        title: event.type === 'turn_started' ? visible(event.title ?? 'Turn started') : 'Message received',
        meta: [],
      };
    case 'input':
      return { kind: 'input', title: 'Request', meta: [], text: visible(event.text) };
    case 'tool_call': {
      if (event.at !== undefined) callAt.set(event.callId, event.at);
      const input = event.input === undefined ? undefined : capped(JSON.stringify(event.input, null, 2));
      return {
        kind: 'tool_call',
        title: visible(`${event.tool}${event.summary ? `: ${event.summary}` : ''}`),
        meta: [],
        ...(input ? { input: input.shown } : {}),
      };
    }
    case 'tool_result': {
      const started = callAt.get(event.callId);
      const meta = [event.ok ? 'ok' : 'failed'];
      if (event.exitCode !== undefined) meta.push(`exit ${event.exitCode}`);
      if (started !== undefined && event.at !== undefined) meta.push(seconds(event.at - started));
      const output = event.output === undefined ? undefined : capped(event.output);
      return {
        kind: 'tool_result',
        title: visible(`${event.tool} result${event.summary ? `: ${event.summary}` : ''}`),
        meta,
        ...(output ? { output: output.shown, ...(output.cut ? { cut: output.cut } : {}) } : {}),
      };
    }
    case 'command': {
      const output = event.output === undefined ? undefined : capped(event.output);
      return {
        kind: 'command',
        title: visible(`$ ${event.command}`),
        meta: event.exitCode === undefined ? [] : [`exit ${event.exitCode}`],
        ...(output ? { output: output.shown, ...(output.cut ? { cut: output.cut } : {}) } : {}),
      };
    }
    case 'assistant':
      return { kind: 'assistant', title: 'Assistant', meta: [], text: visible(event.text) };
    case 'subagent':
      return {
        kind: 'subagent',
        title: visible(`Subagent ${event.name ?? event.subagentId}`),
        meta: [event.status],
      };
    case 'policy_request':
      return {
        kind: 'policy_request',
        title: visible(`Approval asked: ${event.title ?? event.command}`),
        meta: [],
        text: visible([event.command, ...(event.args ?? [])].join(' ')),
      };
    case 'policy_decision': {
      const by = starterOf(event) ?? (event as { decidedBy?: unknown }).decidedBy;
      return {
        kind: 'policy_decision',
        title: visible(`Approval ${event.decision}${event.command ? `: ${event.command}` : ''}`),
        meta: typeof by === 'string' ? [visible(`by ${by}`)] : [],
      };
    }
    case 'question':
      return {
        kind: 'question',
        title: visible(event.title ?? 'Question'),
        meta: [],
        text: visible(event.question),
      };
    case 'note':
      return {
        kind: 'note',
        title: 'Note',
        meta: event.level ? [event.level] : [],
        text: visible(event.text),
      };
    case 'answer':
      return { kind: 'answer', title: 'Answer', meta: [], answer: parseMarkdown(visible(event.text)) };
    case 'turn_ended':
      return { kind: 'end', title: `Turn ended: ${event.outcome}`, meta: [] };
  }
}

export function headlineOf(
  turnId: string,
  events: readonly RunEvent[],
  state: { state: string; ended: boolean; outcome?: string },
): RunHeadline {
  const first = events[0];
  const times = events.map((event) => event.at).filter((at): at is number => at !== undefined);
  const startedBy = events.map(starterOf).find((who) => who !== undefined);
  // The record's turn_ended ends the page even while the runtime still sends the final frame.
  const endedEvent = events.find((event) => event.type === 'turn_ended');
  const outcome = state.outcome ?? endedEvent?.outcome;
  return {
    turnId: visible(turnId),
    space: first?.space ?? '',
    state: endedEvent && !state.ended ? 'ended' : state.state,
    ended: state.ended || endedEvent !== undefined,
    ...(outcome ? { outcome } : {}),
    ...(times.length > 0 ? { startedAt: Math.min(...times), lastAt: Math.max(...times) } : {}),
    ...(startedBy ? { startedBy: visible(startedBy) } : {}),
  };
}
