/**
 * `fastAssign`: XState's `assign`, resolved without two costs that a
 * context of many fields pays on every assignment (issue 24 item 1):
 *
 * - XState builds the next context with `Object.assign({}, context, update)`.
 *   V8 turns an object that gets 20 or more fields that way into a
 *   dictionary (a hash table): the turn's context has 27, so every
 *   assignment allocated a table of several KB and every later read of the
 *   context was a hash lookup. A spread (`{ ...context, ...update }`) keeps
 *   the context's hidden class: fast fields, one small object.
 * - XState clones the snapshot through `createMachineSnapshot`, which derives
 *   the state value and a new `tags` Set from the state nodes again. An
 *   assignment changes no state node, so the snapshot is copied as it is,
 *   with the new context.
 *
 * Same semantics otherwise: the assignment (a function, or an object of
 * values or functions per field) sees `context`, `event`, `self`, `system`,
 * and the action's params. It cannot `spawn` (an assignment that spawns
 * uses XState's `assign`): asked to, it throws, saying so.
 *
 * It works through the `resolve` hook XState's built-in actions carry; when
 * an XState version has none, `fastAssign` is XState's `assign` unchanged.
 */
import { assign } from 'xstate';

interface AssignArgs {
  context: Record<string, unknown>;
  event: unknown;
  spawn: () => never;
  self: unknown;
  system: unknown;
}

type Assignment =
  | ((args: AssignArgs, params: unknown) => Record<string, unknown>)
  | Record<string, unknown | ((args: AssignArgs, params: unknown) => unknown)>;

interface ResolvableAction {
  resolve?: (
    scope: { self: unknown; system: unknown },
    snapshot: { context?: Record<string, unknown> },
    args: { event: unknown },
    params: unknown,
  ) => [unknown, undefined, undefined];
}

const noSpawn = (): never => {
  throw new Error('fastAssign: an assignment that spawns must use XState’s assign (machines/fast-assign.ts)');
};

function update(assignment: Assignment, args: AssignArgs, params: unknown): Record<string, unknown> {
  if (typeof assignment === 'function') return assignment(args, params);
  const partial: Record<string, unknown> = {};
  for (const key of Object.keys(assignment)) {
    const value = assignment[key];
    partial[key] =
      typeof value === 'function' ? (value as (a: AssignArgs, p: unknown) => unknown)(args, params) : value;
  }
  return partial;
}

export const fastAssign = ((assignment: Assignment) => {
  const action = (assign as (a: Assignment) => ResolvableAction)(assignment);
  if (typeof action.resolve !== 'function') return action;
  action.resolve = (scope, snapshot, args, params) => {
    const context = snapshot.context;
    if (!context) throw new Error('fastAssign: the machine has no context to assign to');
    const partial = update(
      assignment,
      { context, event: args.event, spawn: noSpawn, self: scope.self, system: scope.system },
      params,
    );
    return [{ ...snapshot, context: { ...context, ...partial } }, undefined, undefined];
  };
  return action;
}) as unknown as typeof assign;
