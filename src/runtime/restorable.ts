/**
 * `spawnChild` has no `snapshot` option, so a supervisor cannot hand a
 * persisted snapshot to a child it starts again. `restorable(machine)` is the
 * same machine logic whose initial snapshot is the persisted one when the
 * input carries it (`input.persisted`). Invoked promise actors that were in
 * flight run again (with the same client id, so a post is not duplicated);
 * delayed events are not restored by XState, so the supervisor sends the
 * machine's recover event right after.
 */
import type { AnyStateMachine, Snapshot } from 'xstate';

export function restorable<TMachine extends AnyStateMachine>(machine: TMachine): TMachine {
  const logic = Object.create(machine) as TMachine;
  logic.getInitialSnapshot = ((scope: Parameters<TMachine['getInitialSnapshot']>[0], input: unknown) => {
    const persisted = (input as { persisted?: Snapshot<unknown> } | undefined)?.persisted;
    return persisted !== undefined
      ? machine.restoreSnapshot(persisted, scope)
      : machine.getInitialSnapshot(scope, input);
  }) as TMachine['getInitialSnapshot'];
  return logic;
}
