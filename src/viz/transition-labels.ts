/**
 * Readable transition labels: `event [guard]`, with XState's generated event
 * types spelled the way a person reads the machine file
 * (`xstate.after.editDebounce.turn.debouncing.waiting` → `after editDebounce`,
 * `xstate.done.actor.postLog` → `postLog done`).
 */
import type { AnyStateNode, AnyTransitionDefinition } from 'xstate';

const WILDCARD_LABELS: Record<string, string> = {
  '*': 'any event',
  'xstate.done.actor.*': 'any child done',
  'xstate.error.actor.*': 'any child error',
};

/** Prefixes of the events XState raises for invoked actors, and the word each reads as. */
const ACTOR_EVENT_PREFIXES: ReadonlyArray<readonly [prefix: string, word: string]> = [
  ['xstate.done.actor.', 'done'],
  ['xstate.error.actor.', 'error'],
  ['xstate.snapshot.', 'snapshot'],
];

export function transitionLabel(transition: AnyTransitionDefinition): string {
  const event = eventLabel(transition.eventType, transition.source);
  return transition.guard === undefined ? event : `${event} [${guardLabel(transition.guard)}]`;
}

/** The event part of a label; `source` is the state node the transition belongs to. */
export function eventLabel(eventType: string, source: AnyStateNode): string {
  // `always` transitions carry the empty (null) event type.
  if (eventType === '') return 'always';
  const wildcard = WILDCARD_LABELS[eventType];
  if (wildcard !== undefined) return wildcard;
  if (eventType.startsWith('xstate.after.')) return delayLabel(eventType, source);
  if (eventType.startsWith('xstate.done.state.')) return 'done';
  for (const [prefix, word] of ACTOR_EVENT_PREFIXES) {
    if (eventType.startsWith(prefix)) return `${actorName(eventType.slice(prefix.length), source)} ${word}`;
  }
  return eventType;
}

function delayLabel(eventType: string, source: AnyStateNode): string {
  // The event type embeds the state id after the delay, so the delay is read from the node's own `after` list.
  const delayed = source.after.find((t) => t.eventType === eventType);
  if (delayed === undefined) return eventType;
  return typeof delayed.delay === 'number' ? `after ${delayed.delay}ms` : `after ${String(delayed.delay)}`;
}

/** The invoke's own id, or its `src` when XState generated the id (`0.turn.opened.posting`). */
function actorName(invokeId: string, source: AnyStateNode): string {
  const index = source.invoke.findIndex((def) => def.id === invokeId);
  const def = source.invoke[index];
  if (def === undefined || invokeId !== `${index}.${source.id}`) return invokeId;
  return typeof def.src === 'string' && !def.src.startsWith('xstate.invoke.') ? def.src : 'invoked actor';
}

interface HigherOrderGuard {
  (...args: never[]): unknown;
  guards?: unknown[];
  stateValue?: unknown;
}

/** A guard as written: its name, `!a`, `a && b`, `a || b`, `in state`, or `inline` for an anonymous function. */
export function guardLabel(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return functionGuardLabel(guard as HigherOrderGuard);
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return guardLabel(guard.type);
  return 'inline';
}

function functionGuardLabel(guard: HigherOrderGuard): string {
  // xstate's not()/and()/or() return functions named after themselves that keep their operands in `.guards`.
  if (Array.isArray(guard.guards)) {
    const operands = guard.guards.map(operandLabel);
    if (guard.name === 'not') return `!${operands[0] ?? ''}`;
    if (guard.name === 'and') return operands.join(' && ');
    if (guard.name === 'or') return operands.join(' || ');
  }
  if (guard.name === 'stateIn' && guard.stateValue !== undefined) {
    const value = guard.stateValue;
    return `in ${typeof value === 'string' ? value : JSON.stringify(value)}`;
  }
  // An arrow function written as `guard: ({ context }) => …` is named after the property.
  return guard.name === '' || guard.name === 'guard' ? 'inline' : guard.name;
}

function operandLabel(guard: unknown): string {
  const label = guardLabel(guard);
  return / (?:&&|\|\|) /.test(label) ? `(${label})` : label;
}
