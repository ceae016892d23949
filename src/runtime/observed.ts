/**
 * `observed(logic, onSnapshot)`: the same machine logic, which tells
 * `onSnapshot` every snapshot it makes (the initial one and the one after
 * each event), with the actor it belongs to. The runtime persists live turns
 * from it instead of from XState inspection, so inspection stays off unless
 * a caller asks for it (docs/library.md). A transition that throws calls
 * nothing: the actor fails, and its last good snapshot is the one reported.
 */
import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';

/** `logic` persists the snapshot (`logic.getPersistedSnapshot(snapshot)`), even after the actor failed. */
export type SnapshotListener = (
  self: AnyActorRef,
  snapshot: AnyMachineSnapshot,
  logic: AnyStateMachine,
) => void;

export function observed<TMachine extends AnyStateMachine>(
  machine: TMachine,
  onSnapshot: SnapshotListener,
): TMachine {
  const logic = Object.create(machine) as TMachine;
  logic.getInitialSnapshot = ((scope: Parameters<TMachine['getInitialSnapshot']>[0], input: unknown) => {
    const snapshot = machine.getInitialSnapshot(scope, input);
    onSnapshot(scope.self, snapshot, machine);
    return snapshot;
  }) as TMachine['getInitialSnapshot'];
  logic.transition = ((
    snapshot: Parameters<TMachine['transition']>[0],
    event: Parameters<TMachine['transition']>[1],
    scope: Parameters<TMachine['transition']>[2],
  ) => {
    const next = machine.transition(snapshot, event, scope);
    onSnapshot(scope.self, next, machine);
    return next;
  }) as TMachine['transition'];
  return logic;
}
