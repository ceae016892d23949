/**
 * An actor scope for running machine logic outside an actor (the model
 * kits' graph traversal): messages, timers and children go nowhere. Give a
 * `system` to observe what the machine reports (inspection events).
 */
import { type AnyActorScope, createEmptyActor } from 'xstate';

export function detachedScope(
  sessionId: string,
  system?: (self: ReturnType<typeof createEmptyActor>) => unknown,
): AnyActorScope {
  const self = createEmptyActor();
  return {
    self,
    id: '',
    sessionId,
    system: system ? system(self) : self.system,
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    actionExecutor: () => {},
  } as unknown as AnyActorScope;
}
