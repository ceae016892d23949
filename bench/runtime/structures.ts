/**
 * What the runtime's actors hold, read from their snapshots: the sizes of
 * the structures that must not grow with finished turns.
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import type { BudgetMachineContext } from '../../machines/budget.machine.js';
import type { SpaceContext } from '../../machines/space.machine.js';
import type { TurnContext } from '../../machines/turn.machine.js';
import type { Runtime } from '../../src/runtime.js';

export interface RuntimeStructures {
  spaces: number;
  /** Children of the space actors that are turn actors (`turn:<slot>`). */
  turnActors: number;
  /** Children of the space actors that are delivery actors (`delivery:<slot>`), finished or not. */
  deliveryActors: number;
  /** `turns` records in the space actors' context. */
  turnRecords: number;
  /** Cards in the budget registries (live turns sharing the progress rate). */
  budgetCards: number;
  /** Channels with a booked next-free time in the budget registries. */
  budgetChannels: number;
}

const childrenOf = (actor: AnyActorRef): AnyActorRef[] =>
  Object.values((actor.getSnapshot() as AnyMachineSnapshot).children ?? {}) as AnyActorRef[];

export function runtimeStructures(runtime: Runtime): RuntimeStructures {
  const sizes: RuntimeStructures = {
    spaces: 0,
    turnActors: 0,
    deliveryActors: 0,
    turnRecords: 0,
    budgetCards: 0,
    budgetChannels: 0,
  };
  for (const child of childrenOf(runtime.actor)) {
    const snapshot = child.getSnapshot() as AnyMachineSnapshot;
    if (child.id.startsWith('space:')) {
      sizes.spaces += 1;
      sizes.turnRecords += Object.keys((snapshot.context as SpaceContext).turns).length;
      for (const grandchild of childrenOf(child)) {
        if (grandchild.id.startsWith('turn:')) sizes.turnActors += 1;
        else if (grandchild.id.startsWith('delivery:')) sizes.deliveryActors += 1;
      }
    } else if (child.id.startsWith('budget:')) {
      const { registry } = (snapshot.context as BudgetMachineContext).budget;
      sizes.budgetCards += Object.keys(registry.cards).length;
      sizes.budgetChannels += Object.keys(registry.channels).length;
    }
  }
  return sizes;
}

/** How many live turn actors are in each state (`opened.live` is idle: log posted, nothing pending). */
export function turnStates(runtime: Runtime): Map<string, number> {
  const states = new Map<string, number>();
  for (const space of childrenOf(runtime.actor)) {
    if (!space.id.startsWith('space:')) continue;
    for (const turn of childrenOf(space)) {
      if (!turn.id.startsWith('turn:')) continue;
      const { turnId } = (turn.getSnapshot() as AnyMachineSnapshot).context as TurnContext;
      const state = runtime.turn(turnId)?.state ?? 'unknown';
      states.set(state, (states.get(state) ?? 0) + 1);
    }
  }
  return states;
}
