/**
 * The actor system: the root machine (machines/runtime.machine.ts) provided
 * with its budgets (one per configured platform) and its spaces, and the
 * supervision the root does — a space that fails is started again with its
 * live turns, stray log and unposted answers; a budget, with a fresh bucket.
 */
import { type AnyActorRef, createActor, enqueueActions, type InspectionEvent } from 'xstate';
import { budgetMachine } from '../../machines/budget.machine.js';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import type { DeliveryInput } from '../../machines/delivery.machine.js';
import { runtimeMachine, spaceChildId } from '../../machines/runtime.machine.js';
import type { RestoredTurn, SpaceInput, spaceMachine } from '../../machines/space.machine.js';
import type { BudgetInput } from '../budget/config.js';
import { createBudgetImplementations } from '../budget/implementations.js';
import type { BudgetGate } from '../budget/shared-budget.js';
import type { Clock } from '../clock.js';
import type { RuntimeLogger } from './types.js';

export interface ActorSystemDeps {
  clock: Clock;
  logger: RuntimeLogger;
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** The space logic, provided (src/runtime/space.implementations.ts). */
  spaceLogic: typeof spaceMachine;
  /** The platforms served, each with its budget's input. */
  budgets: { platform: string; input: BudgetInput }[];
  /** A space's input when the root starts it (settings, anchors, stray log). */
  spaceInput: (space: string) => SpaceInput;
  /** What a space restored at start takes up: the turns of the restore plan. */
  restoredTurns: (space: string) => RestoredTurn[];
  /** What a space started again after failing takes up: its live turns as last persisted. */
  liveTurnsOf: (space: string) => RestoredTurn[];
  /** Answer parts of a space not posted yet, to deliver again (in order). */
  answersOf: (space: string) => DeliveryInput[];
  /** Persists every changed snapshot now (a restarted space resumes from the newest). */
  writeAll: () => void;
  /** Issue 23 item 5: the budget shared with the app's other processes, which every grant passes. */
  budgetGate?: BudgetGate | undefined;
}

export function createActorSystem(deps: ActorSystemDeps): AnyActorRef {
  const { logger } = deps;
  const budgetLogic = budgetMachine.provide(
    createBudgetImplementations({ now: () => deps.clock.now(), gate: deps.budgetGate }),
  );
  const restoreEvent = (turns: RestoredTurn[], space: string) => {
    const answers = deps.answersOf(space);
    return { type: 'space.restore' as const, turns, ...(answers.length > 0 ? { answers } : {}) };
  };
  // Late-bound: a restarted space's orphaned children are read from the root's snapshot.
  let root: AnyActorRef | undefined;

  const machine = runtimeMachine.provide({
    actors: { space: deps.spaceLogic, budget: budgetLogic },
    actions: {
      spawnBudgets: enqueueActions(({ enqueue }) => {
        for (const { platform, input } of deps.budgets) {
          const id = budgetSystemId(platform);
          enqueue.spawnChild('budget', { id, systemId: id, input });
        }
      }),
      spawnSpace: enqueueActions(({ enqueue, context }, params) => {
        enqueue.spawnChild('space', { id: spaceChildId(params.space), input: deps.spaceInput(params.space) });
        enqueue.assign({ spaces: { ...context.spaces, [params.space]: true } });
      }),
      restoreSpaces: enqueueActions(({ enqueue, context }, params) => {
        const spaces = { ...context.spaces };
        for (const space of params.spaces) {
          if (!spaces[space]) {
            enqueue.spawnChild('space', { id: spaceChildId(space), input: deps.spaceInput(space) });
            spaces[space] = true;
          }
          enqueue.sendTo(spaceChildId(space), restoreEvent(deps.restoredTurns(space), space));
        }
        enqueue.assign({ spaces });
      }),
      restartSpace: enqueueActions(({ enqueue, context }, params) => {
        logger.error(`space ${params.space} failed; starting it again and restoring its live turns`, {
          error: String(params.error),
        });
        const restarts = (context.spaceRestarts[params.space] ?? 0) + 1;
        // First: the new space's stray log resumes from the newest snapshot of the old one's.
        deps.writeAll();
        // XState does not stop the children of an actor that failed: they would run on, orphaned, beside
        // the turns, stray log and answers restored below (every answer part posted twice).
        const failed: AnyActorRef | undefined = root?.getSnapshot().children[spaceChildId(params.space)];
        const orphans: Record<string, AnyActorRef | undefined> = failed?.getSnapshot().children ?? {};
        for (const child of Object.values(orphans)) child?.stop();
        enqueue.stopChild(spaceChildId(params.space));
        enqueue.spawnChild('space', { id: spaceChildId(params.space), input: deps.spaceInput(params.space) });
        // Its answers in flight went with it: their parts not posted yet go again (same client ids, no duplicates).
        enqueue.sendTo(
          spaceChildId(params.space),
          restoreEvent(deps.liveTurnsOf(params.space), params.space),
        );
        enqueue.assign({ spaceRestarts: { ...context.spaceRestarts, [params.space]: restarts } });
      }),
      restartBudget: enqueueActions(({ enqueue }, params) => {
        logger.error(`${params.childId} failed; starting it again with a fresh bucket`, {
          error: String(params.error),
        });
        const budget = deps.budgets.find(({ platform }) => params.childId === budgetSystemId(platform));
        if (!budget) return;
        enqueue.stopChild(params.childId);
        const id = budgetSystemId(budget.platform);
        enqueue.spawnChild('budget', { id, systemId: id, input: budget.input });
      }),
    },
  });
  root = createActor(machine, {
    clock: deps.clock,
    ...(deps.inspect ? { inspect: deps.inspect } : {}),
  });
  root.subscribe({ error: (error) => logger.error('runtime actor failed', { error: String(error) }) });
  return root;
}
