/**
 * Issue 21.5: events always go through the root machine, never around it.
 * Every event a space supervisor receives is sent by the root (or by the
 * space itself, or one of its children); every event a turn receives comes
 * from inside the actor system. Nothing reaches a space or a turn straight
 * from the runtime's code: not a run event (single or in a batch), not a
 * settings change, not Stop on a turn's log, not a shutdown flush.
 */
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { SPACE, startRuntime } from './runtime.helpers.js';

interface Delivery {
  to: string;
  type: string;
  from: string | undefined;
}

describe('every event goes through the root machine', () => {
  it('run events, settings, Stop and the shutdown flush reach spaces and turns only from inside the system', async () => {
    const seen: InspectionEvent[] = [];
    const h = await startRuntime({
      config: { visibility: { stopButton: true } },
      inspect: (e) => seen.push(e),
    });
    const root = h.runtime.actor;
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'make' } });
    await h.advance(1500);
    h.runtime.ingestBatch([
      { space: SPACE, type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read' },
      { space: SPACE, type: 'tool_call', turnId: 'T1', callId: 'c3', tool: 'Grep' },
    ]);
    h.runtime.configureSpace(SPACE, { threadsDisabled: false });
    h.runtime.resetSpace(SPACE);
    const log = h.runtime.turn('T1')?.logMessages[0]?.messageId;
    expect(log).toBeDefined();
    const click = await h.runtime.receive({
      kind: 'click',
      space: SPACE,
      messageId: log ?? '',
      action: 'stop',
      user: { id: 'users/alice', name: 'Alice' },
      at: 0,
      dedupeKey: 'k1',
    });
    expect(click.status).toBe('accepted');
    // A pending entry the shutdown flush must send.
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c4', tool: 'Edit' });
    expect(await h.runtime.stop({ flush: true, timeoutMs: 5000 })).toEqual({ flushed: true });

    const deliveries: Delivery[] = seen
      .filter((e): e is Extract<InspectionEvent, { type: '@xstate.event' }> => e.type === '@xstate.event')
      .map((e) => ({
        to: (e.actorRef as AnyActorRef).id,
        type: e.event.type,
        from: (e.sourceRef as AnyActorRef | undefined)?.id,
      }));
    const toSpace = deliveries.filter((d) => d.to.startsWith('space:'));
    const toTurn = deliveries.filter((d) => d.to.startsWith('turn:'));
    // The run did what it should: typed events, a Stop and a flush reached the space and the turn.
    for (const type of [
      'space.inbound',
      'space.turnStarted',
      'space.entry',
      'space.events',
      'space.configure',
      'space.reset',
      'space.stopTurn',
      'space.flush',
    ]) {
      expect(toSpace.map((d) => d.type)).toContain(type);
    }
    expect(toTurn.map((d) => d.type)).toEqual(expect.arrayContaining(['turn.stopRequested', 'turn.flush']));
    // None came from outside the actor system (an event sent straight to an actor has no source).
    expect(toSpace.filter((d) => d.type !== 'xstate.init' && d.from === undefined)).toEqual([]);
    expect(toTurn.filter((d) => d.type !== 'xstate.init' && d.from === undefined)).toEqual([]);
    // The runtime's own events went to the root, which passed them on.
    const fromRuntime = deliveries.filter((d) => d.from === undefined && d.type !== 'xstate.init');
    expect(new Set(fromRuntime.map((d) => d.to))).toEqual(new Set([root.id]));
    expect(
      toSpace.filter((d) => d.type.startsWith('space.') && d.from !== root.id && d.from !== d.to),
    ).toEqual([]);
  });
});
