/**
 * `spawnChild` has no `snapshot` option, so a supervisor cannot hand a
 * persisted snapshot to a child it starts again. `restorable(machine)` is the
 * same machine logic whose initial snapshot is the persisted one when the
 * input carries it: `spawnChild('restoredTurn', {input: {persisted, input}})`.
 * Invoked promise actors that were in flight run again (with the same client
 * id, so a post is not duplicated); delayed events are not restored by XState,
 * so the supervisor sends the machine's recover event right after.
 */
import type { AnyStateMachine, InputFrom, Snapshot } from 'xstate';

export interface RestorableInput<TMachine extends AnyStateMachine> {
  /** `actor.getPersistedSnapshot()` of an earlier actor of this machine. */
  persisted?: Snapshot<unknown>;
  /** The input for a fresh start when there is nothing to restore. */
  input: InputFrom<TMachine>;
}

export function restorable<TMachine extends AnyStateMachine>(machine: TMachine): TMachine {
  const logic = Object.create(machine) as TMachine;
  logic.getInitialSnapshot = ((
    scope: Parameters<TMachine['getInitialSnapshot']>[0],
    wrapped: RestorableInput<TMachine>,
  ) =>
    wrapped.persisted !== undefined
      ? machine.restoreSnapshot(wrapped.persisted, scope)
      : machine.getInitialSnapshot(scope, wrapped.input)) as TMachine['getInitialSnapshot'];
  return logic;
}
