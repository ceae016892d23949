// spec: issue 22.2 — who may decide (src/actions/deciders.ts, docs/http-api.md (actions) "Who may decide"): the requester
// (turn_started.requestedBy, else the root message's author seen by intake) and the approvers
// (actions.approvers, spaces.<space>.approvers); anyone with "anyone" or when neither is known, with a warning.
import { describe, expect, it } from 'vitest';
import { createDeciderBook } from '../../src/actions/deciders.js';
import { resolveConfig } from '../../src/config.js';
import type { RunEvent } from '../../src/events/schema.js';

const SPACE = 'slack:C0DECIDE1';
const user = (id: string) => ({ id });

function book(config: Record<string, unknown> = {}, events: RunEvent[] = []) {
  return createDeciderBook({ config: resolveConfig(config), store: { events: () => events } });
}

const started = (extra: Record<string, unknown>): RunEvent =>
  ({ type: 'turn_started', space: SPACE, turnId: 'T1', ...extra }) as RunEvent;

describe('who may decide', () => {
  it('the root message’s author (by rootRef or root.messageId) decides; a bystander does not', async () => {
    for (const root of [{ rootRef: 'act_1' }, { root: { messageId: '1700.1' } }]) {
      const b = book();
      b.noteMessage(SPACE, '1700.1', 'act_1', user('UALICE'));
      b.noteEvent(started(root));
      expect(await b.mayDecide('T1', SPACE, user('UALICE'))).toEqual({ allowed: true });
      expect(await b.mayDecide('T1', SPACE, user('UBOB'))).toMatchObject({ allowed: false });
      expect(b.warningOf('T1')).toBeUndefined();
    }
  });

  it('requestedBy wins over the root’s author; approvers (global and the space’s) decide too', async () => {
    const b = book({ actions: { approvers: ['UGLOBAL'] }, spaces: { [SPACE]: { approvers: ['USPACE'] } } });
    b.noteMessage(SPACE, '1700.1', 'act_1', user('UALICE'));
    b.noteEvent(started({ rootRef: 'act_1', requestedBy: 'UDAVE' }));
    expect(await b.mayDecide('T1', SPACE, user('UDAVE'))).toEqual({ allowed: true });
    expect(await b.mayDecide('T1', SPACE, user('UGLOBAL'))).toEqual({ allowed: true });
    expect(await b.mayDecide('T1', SPACE, user('USPACE'))).toEqual({ allowed: true });
    expect(await b.mayDecide('T1', SPACE, user('UALICE'))).toMatchObject({ allowed: false });
    // Another space's approvers are not this one's.
    expect(await b.mayDecide('T1', 'slack:C0OTHER', user('USPACE'))).toMatchObject({ allowed: false });
  });

  it('no requester and no approvers: anyone, and the warning says so; approvers only: only they', async () => {
    const open = book();
    open.noteEvent(started({ title: 'Nightly' }));
    expect(await open.mayDecide('T1', SPACE, user('UBOB'))).toEqual({ allowed: true });
    // Said once the turn has something to decide.
    expect(open.warningOf('T1')).toBeUndefined();
    open.noteEvent({
      type: 'policy_request',
      space: SPACE,
      turnId: 'T1',
      requestId: 'p1',
      command: 'x',
    } as RunEvent);
    expect(open.warningOf('T1')).toMatch(/anyone in the space may decide .* no approvers are configured/);
    const withStop = createDeciderBook({
      config: resolveConfig({}),
      store: { events: () => [] },
      stopButton: true,
    });
    withStop.noteEvent(started({ title: 'Nightly' }));
    expect(withStop.warningOf('T1')).toMatch(/anyone in the space may decide/);
    const approversOnly = book({ actions: { approvers: ['UOPS'] } });
    approversOnly.noteEvent(started({ title: 'Nightly' }));
    approversOnly.noteEvent({
      type: 'question',
      space: SPACE,
      turnId: 'T1',
      questionId: 'q',
      question: '?',
      options: ['a'],
    } as RunEvent);
    expect(await approversOnly.mayDecide('T1', SPACE, user('UBOB'))).toMatchObject({ allowed: false });
    expect(await approversOnly.mayDecide('T1', SPACE, user('UOPS'))).toEqual({ allowed: true });
    expect(approversOnly.warningOf('T1')).toBeUndefined();
  });

  it('"anyone": everyone decides, no warning', async () => {
    const b = book({ actions: { deciders: 'anyone' } });
    b.noteEvent(started({ requestedBy: 'UDAVE' }));
    expect(await b.mayDecide('T1', SPACE, user('UBOB'))).toEqual({ allowed: true });
    expect(b.warningOf('T1')).toBeUndefined();
  });

  it('a turn started before a restart: its requestedBy is read from the run record', async () => {
    const b = book({}, [started({ requestedBy: 'UDAVE' })]);
    expect(await b.mayDecide('T1', SPACE, user('UDAVE'))).toEqual({ allowed: true });
    expect(await b.mayDecide('T1', SPACE, user('UBOB'))).toMatchObject({ allowed: false });
  });

  it('turn_ended marks the turn ended', () => {
    const b = book();
    b.noteEvent(started({}));
    expect(b.hasEnded('T1')).toBe(false);
    b.noteEvent({ type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' } as RunEvent);
    expect(b.hasEnded('T1')).toBe(true);
  });

  it('the config refuses a deciders value it does not know', () => {
    expect(() => resolveConfig({ actions: { deciders: 'everyone' } })).toThrow(/actions\.deciders/);
  });
});
