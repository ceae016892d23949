/**
 * What the runtime reads of the live actors under the root: a turn's actor
 * (its view), the space it runs in, and what a shutdown flush waits for.
 * Reads only: everything sent to a space or a turn goes through the root
 * (machines/runtime.machine.ts).
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import type { SpaceContext } from '../../machines/space.machine.js';
import { turnChildId } from '../../machines/space.machine.js';
import type { TurnContext } from '../../machines/turn.machine.js';
import type { RuntimeLogger } from './types.js';

const DEFAULT_POLL_MS = 20;

/** Nothing pending and nothing in flight: a flush has nothing to do for this turn. */
export function isQuietTurn(snapshot: AnyMachineSnapshot): boolean {
  const context: TurnContext = snapshot.context;
  if (context.appended > context.shown) return false;
  return ['opened.live', 'opened.ticking', 'idle', 'degraded.quiet', 'degraded.waitingForMore'].some(
    (state) => snapshot.matches(state as never),
  );
}

/** A stray log with nothing to write and no write in flight. */
export const isQuietStrayWriter = (snapshot: AnyMachineSnapshot): boolean =>
  snapshot.matches({ writer: 'idle' } as never);

/** What one space still has to do before a shutdown: busy turns, a busy stray log, deliveries in flight. */
export interface SpaceWork {
  space: string;
  turnIds: string[];
  strays: boolean;
  deliveries: number;
}

export function createLiveActors(root: () => AnyActorRef) {
  /** Every space actor with its context. */
  function* spaces(): Generator<{ actor: AnyActorRef; context: SpaceContext }> {
    const children: Record<string, AnyActorRef | undefined> = root().getSnapshot().children;
    for (const actor of Object.values(children)) {
      const snapshot: AnyMachineSnapshot | undefined = actor?.getSnapshot();
      const context: Partial<SpaceContext> | undefined = snapshot?.context;
      if (actor && context?.turns !== undefined && context.turnSlots !== undefined) {
        yield { actor, context: snapshot?.context };
      }
    }
  }

  /** A live turn's actor and its space: `turn:<slot>` of its space, the slot its space's record names. */
  function find(turnId: string): { actor: AnyActorRef; space: string } | undefined {
    for (const { actor, context } of spaces()) {
      const slot = context.turns[turnId]?.slot;
      if (slot === undefined || slot === null) continue;
      const turn: AnyActorRef | undefined = actor.getSnapshot().children[turnChildId(slot)];
      return turn && { actor: turn, space: context.space };
    }
    return undefined;
  }

  /** What each space has pending or in flight (spaces with nothing left out). */
  function work(): SpaceWork[] {
    const busy: SpaceWork[] = [];
    for (const { actor, context } of spaces()) {
      const children: Record<string, AnyActorRef | undefined> = actor.getSnapshot().children;
      const item: SpaceWork = { space: context.space, turnIds: [], strays: false, deliveries: 0 };
      for (const [id, child] of Object.entries(children)) {
        const snapshot: AnyMachineSnapshot | undefined = child?.getSnapshot();
        if (snapshot?.status !== 'active') continue;
        if (id.startsWith('turn:') && !isQuietTurn(snapshot)) item.turnIds.push(snapshot.context.turnId);
        else if (id.startsWith('delivery:')) item.deliveries++;
        else if (id === 'strays' && !isQuietStrayWriter(snapshot)) item.strays = true;
      }
      if (item.turnIds.length > 0 || item.strays || item.deliveries > 0) busy.push(item);
    }
    return busy;
  }

  return {
    /** Every space actor with its context (an adoption is checked against the space's live turns). */
    spaces,
    turnActor: (turnId: string): AnyActorRef | undefined => find(turnId)?.actor,
    spaceOfTurn: (turnId: string): string | undefined => find(turnId)?.space,
    work,
    /**
     * Asks every live turn and every space's stray log to flush (through the
     * root) until none has anything pending or in flight (one busy writing is
     * asked again once it is done), in real time: a shutdown has a wall-clock
     * deadline whatever clock drives the actors.
     */
    async flushAll(timeoutMs: number, logger: RuntimeLogger, pollMs = DEFAULT_POLL_MS): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const busy = work();
        if (busy.length === 0) return true;
        if (Date.now() >= deadline) {
          logger.warn('shutdown flush timed out; the rest stays persisted for the next start', {
            turns: busy.reduce((n, s) => n + s.turnIds.length, 0),
            deliveries: busy.reduce((n, s) => n + s.deliveries, 0),
            strayLogs: busy.filter((s) => s.strays).length,
          });
          return false;
        }
        for (const { space, turnIds, strays } of busy) {
          if (turnIds.length > 0 || strays) {
            root().send({
              type: 'runtime.toLiveSpace',
              space,
              event: { type: 'space.flush', turnIds, strays },
            });
          }
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}

export type LiveActors = ReturnType<typeof createLiveActors>;
