// spec: Actor-runtime item 7 — model-based tests of the turn machine with @xstate/graph: every state
// and every transition taken by some path (the test names any never taken), and on every path the
// turn keeps its promises: one notifying post per log message opened (buzzes = 1 + rollovers, and on a
// platform with silent posts a turn buzzes once; a proactive turn's header is one more), no call after
// `ended`, the terminal frame always sent, no entry lost (each entry is in some sent text or in the
// dead-letter record), none shown twice; a shutdown flush never ends the turn nor dead-letters, and
// sends what is pending; a proactive turn's header is its first post, top-level, its log in its thread.
// spec: gchat E2E 9 (rollover), 15 (degraded), 16 (edit fails twice), 17 (404 on edit) run on every path here.
import { describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../src/emulators/types.js';
import { MODEL_HEADER } from '../../src/testing/turn-driver.js';
import {
  checkFinishedTurn,
  checkTurnStep,
  type FinishedTurn,
  type TurnStep,
  turnModelEntryTag,
} from '../../src/testing/turn-invariants.js';
import {
  createTurnModelLogic,
  replayTurnCommands,
  resolveTurnModelConfig,
  type TurnCommand,
  turnMachineStateIds,
  turnMachineTransitionKeys,
  turnModelCommands,
  turnModelEntry,
} from '../../src/testing/turn-model.js';
import { renderTurnLog, turnLogFromEntries } from '../../src/turnlog/log.js';
import { defaultRun, describeModelRuns, NOT_REACHABLE, strategyRun } from './turn.model.runs.js';

describe('the turn machine definition, as the kit lists it', () => {
  it('lists every state and every transition, each once', () => {
    const states = turnMachineStateIds();
    const transitions = turnMachineTransitionKeys();
    expect(states).toHaveLength(47);
    expect(new Set(states).size).toBe(states.length);
    expect(transitions).toHaveLength(155);
    expect(new Set(transitions).size).toBe(transitions.length);
    for (const key of NOT_REACHABLE) expect(transitions).toContain(key);
  });
});

// The strategies' runs are in turn.model-strategies.test.ts (the two files run side by side).
describeModelRuns([
  defaultRun(),
  // Rollovers on a platform with silent posts: a turn buzzes once however many log messages it opens.
  strategyRun('rollover', 'discord'),
]);

describe('replayTurnCommands (one path, as a failure report gives it)', () => {
  it('replays the path that found the degraded turn that never ended: it now ends, top-level', async () => {
    const config = resolveTurnModelConfig({ settings: { maxChars: 100 } });
    const replay = await replayTurnCommands(
      [
        { type: 'start', threaded: true },
        { type: 'log', size: 'short' },
        // Every create asks the budget first, like an edit.
        { type: 'grant' },
        { type: 'end' },
        // The first thread post fails transiently on all of its attempts (it is retried, backing off).
        { type: 'respond', result: 'transient' },
        { type: 'wait' },
        { type: 'grant' },
        { type: 'respond', result: 'transient' },
        { type: 'wait' },
        { type: 'grant' },
        { type: 'respond', result: 'transient' },
      ],
      config,
    );
    expect(replay.problems).toEqual([]);
    expect(replay.finish.map((command) => command.type)).toEqual(['fund', 'respond']);
    const creates = replay.driver.surface.calls.filter((call) => call.op === 'create');
    expect(creates.map((call) => call.status)).toEqual([500, 500, 500, 200]);
    expect(creates[1]?.thread).toBeNull();
    expect(replay.driver.snapshot().status).toBe('done');
  });

  it('replays the path that found the proactive turn that never ended: its header failed after the end came', async () => {
    const replay = await replayTurnCommands(
      [
        { type: 'start', threaded: false, header: true },
        { type: 'end' },
        { type: 'respond', result: 'transient' },
      ],
      resolveTurnModelConfig(),
    );
    expect(replay.problems).toEqual([]);
    expect(replay.finish.map((command) => command.type)).toEqual(['fund']);
    expect(replay.driver.surface.calls.map((call) => [call.op, call.status, call.text])).toEqual([
      ['create', 500, MODEL_HEADER],
    ]);
    expect(replay.driver.snapshot().status).toBe('done');
  });

  it('replays the path that found a flushed top-level batch posted again: each entry is now posted once, the log edited in place', async () => {
    const replay = await replayTurnCommands(
      [
        { type: 'start', threaded: false },
        { type: 'log', size: 'short' },
        { type: 'flush' },
        { type: 'fund' },
        { type: 'respond', result: 'ok' },
        { type: 'log', size: 'short' },
        { type: 'wait' },
        { type: 'grant' },
        { type: 'respond', result: 'ok' },
      ],
      resolveTurnModelConfig(),
    );
    expect(replay.problems).toEqual([]);
    const creates = replay.driver.surface.calls.filter((call) => call.op === 'create');
    expect(creates.map((call) => call.text)).toEqual([expect.stringContaining('[e1]')]);
    const updates = replay.driver.surface.calls.filter((call) => call.op === 'update');
    // Every edit goes to that one message (the last is the terminal frame, its headline ended).
    expect(updates.length).toBeGreaterThan(0);
    expect(new Set(updates.map((call) => call.messageId))).toEqual(new Set([creates[0]?.messageId]));
    expect(updates[0]?.text).toMatch(/\[e1\][\s\S]*\[e2\]/);
  });

  it('replays the path that found a flush inheriting the failure of an edit: its frame now gets its own retry', async () => {
    const replay = await replayTurnCommands(
      [
        { type: 'start', threaded: true },
        { type: 'log', size: 'short' },
        { type: 'grant' },
        { type: 'log', size: 'short' },
        { type: 'respond', result: 'ok' },
        { type: 'wait' },
        { type: 'grant' },
        { type: 'respond', result: 'transient' },
        { type: 'flush' },
        { type: 'fund' },
        { type: 'respond', result: 'transient' },
      ],
      resolveTurnModelConfig(),
    );
    expect(replay.problems).toEqual([]);
    // The flush's frame got its own retry (terminalAttempts 1): it waits to send again, not given up.
    expect(replay.finish.map((command) => command.type)).toEqual(['end', 'wait', 'fund', 'respond']);
    const edits = replay.driver.surface.calls.filter((call) => call.op === 'update');
    expect(edits.map((call) => call.status)).toEqual([500, 500, 200]);
  });

  it('replays a flush from idle whose final post fails for good: the turn waits in idle (past the model depth)', async () => {
    const commands: TurnCommand[] = [
      { type: 'start', threaded: true },
      { type: 'log', size: 'short' },
      { type: 'grant' },
      { type: 'respond', result: 'ok' },
      { type: 'log', size: 'short' },
      { type: 'wait' },
      { type: 'grant' },
      // A person deleted the log message: a new one is asked for, and its post fails.
      { type: 'respond', result: 'not-found' },
      { type: 'grant' },
      { type: 'respond', result: 'transient' },
      { type: 'flush' },
      { type: 'fund' },
      { type: 'respond', result: 'transient' },
      { type: 'wait' },
      { type: 'fund' },
      { type: 'respond', result: 'transient' },
    ];
    const config = resolveTurnModelConfig();
    const logic = createTurnModelLogic(config);
    const model = commands.reduce(
      (snapshot, command) => logic.transition(snapshot, command, undefined as never),
      logic.getInitialSnapshot(undefined as never, undefined),
    );
    // A flush from idle after a failed post whose final post fails too: 16 commands with every create budgeted.
    expect(model.taken).toContain('turn.flushing.settled (always) → turn.idle');
    expect(model.machine?.value).toBe('idle');
    const replay = await replayTurnCommands(commands, config);
    expect(replay.problems).toEqual([]);
  });

  it('replays a proactive turn on Discord: the header and the first log message in its thread notify, a flush goes on', async () => {
    const replay = await replayTurnCommands(
      [
        { type: 'start', threaded: false, header: true },
        { type: 'respond', result: 'ok' },
        { type: 'log', size: 'short' },
        { type: 'grant' },
        { type: 'respond', result: 'ok' },
        { type: 'log', size: 'short' },
        { type: 'flush' },
        { type: 'fund' },
        { type: 'respond', result: 'ok' },
      ],
      resolveTurnModelConfig({ platform: 'discord', settings: { maxChars: 100 } }),
    );
    expect(replay.problems).toEqual([]);
    const creates = replay.driver.surface.calls.filter((call) => call.op === 'create');
    expect(creates.map((call) => [call.text, call.thread, call.notifies])).toEqual([
      [MODEL_HEADER, null, true],
      [expect.stringContaining('[e1]'), creates[0]?.messageId, true],
    ]);
    // The flush edited the log message with [e2]; the turn went on until the kit ended it, and its
    // terminal frame (the headline's final state) went out through a terminal slot.
    expect(replay.finish.map((command) => command.type)).toEqual(['end', 'fund', 'respond']);
  });
});

describe('turnModelCommands (what the model may do next)', () => {
  const config = resolveTurnModelConfig();
  const logic = createTurnModelLogic(config);
  const run = (commands: TurnCommand[]) =>
    commands.reduce(
      (snapshot, command) => logic.transition(snapshot, command, undefined as never),
      logic.getInitialSnapshot(undefined as never, undefined),
    );
  const types = (commands: TurnCommand[]) =>
    turnModelCommands(run(commands), config.maxDepth).map((command) => command.type);

  it('starts a turn threaded, top-level or proactive (with a header)', () => {
    expect(turnModelCommands(run([]), config.maxDepth)).toEqual([
      { type: 'start', threaded: true },
      { type: 'start', threaded: false },
      { type: 'start', threaded: false, header: true },
    ]);
  });

  it('flushes where the turn handles a flush, if only to ignore it (a top-level batch in flight), not elsewhere', () => {
    const start: TurnCommand = { type: 'start', threaded: true };
    const log: TurnCommand = { type: 'log', size: 'short' };
    expect(types([start])).toContain('flush'); // idle
    expect(types([start, log])).not.toContain('flush'); // opened.requesting
    expect(types([start, log, { type: 'grant' }])).not.toContain('flush'); // opened.posting
    expect(types([{ type: 'start', threaded: false, header: true }])).not.toContain('flush'); // heading
    const batchInFlight = run([{ type: 'start', threaded: false }, log, { type: 'wait' }, { type: 'grant' }]);
    expect(batchInFlight.machine?.value).toEqual({ degraded: 'posting' });
    expect(turnModelCommands(batchInFlight, config.maxDepth).map((command) => command.type)).toContain(
      'flush',
    );
  });

  it('answers the header post of a proactive turn like any other call: its frame sender asks its own token', () => {
    const start: TurnCommand = { type: 'start', threaded: false, header: true };
    expect(types([start])).toEqual([
      'log',
      'log',
      'respond',
      'respond',
      'respond',
      'respond',
      'end',
      'stop',
      'adopt',
      'restart',
    ]);
  });
});

describe('the kit’s entries', () => {
  it('are sized so two short ones fit a log message, a third does not, and a long one fills it alone', () => {
    for (const maxChars of [100, 3500]) {
      const rendersAs = (sizes: Array<'short' | 'long'>) =>
        renderTurnLog(
          turnLogFromEntries(
            sizes.map((size, i) => turnModelEntry(i + 1, size, maxChars)),
            { maxChars },
          ),
          { maxChars },
        ).kind;
      expect(rendersAs(['short', 'short'])).toBe('fits');
      expect(rendersAs(['short', 'short', 'short'])).toBe('rollover');
      expect(rendersAs(['long'])).toBe('fits');
      expect(rendersAs(['short', 'long'])).toBe('rollover');
    }
  });

  it('start with their tag', () => {
    expect(turnModelEntry(7, 'short', 100).summary.startsWith(turnModelEntryTag(7))).toBe(true);
  });
});

describe('runTurnModel options', () => {
  it('refuses bad settings with an error naming them', () => {
    expect(() => resolveTurnModelConfig({ settings: { maxChars: 50 } })).toThrow(
      /maxChars must be an integer ≥ 100/,
    );
    expect(() => resolveTurnModelConfig({ settings: { editDebounceMs: -1 } })).toThrow(
      /settings\.editDebounceMs must be an integer ≥ 0, got -1/,
    );
    expect(() => resolveTurnModelConfig({ settings: { terminalAttempts: 0 } })).toThrow(
      /settings\.terminalAttempts must be an integer ≥ 1, got 0/,
    );
    expect(() => resolveTurnModelConfig({ maxDepth: 1 })).toThrow(/maxDepth must be an integer ≥ 2, got 1/);
    expect(() => resolveTurnModelConfig({ maxPaths: 0 })).toThrow(
      /maxPaths must be an integer ≥ 1 or Infinity/,
    );
    expect(() => resolveTurnModelConfig({ platform: 'irc' as never })).toThrow(/platform must be one of/);
    expect(() => resolveTurnModelConfig({ platform: 'discord', settings: { maxChars: 3500 } })).toThrow(
      /settings\.maxChars \(3500\) is over the platform's maxChars \(2000\)/,
    );
  });

  it('uses your settings over its defaults', () => {
    const config = resolveTurnModelConfig({ settings: { strategy: 'hybrid', editDebounceMs: 250 } });
    expect(config.settings).toMatchObject({ strategy: 'hybrid', editDebounceMs: 250, maxChars: 3500 });
    expect(config.capabilities.silentPosts).toBe(true);
    expect(
      resolveTurnModelConfig({ platform: 'discord', settings: { maxChars: 2000 } }).capabilities.silentPosts,
    ).toBe(true);
    expect(resolveTurnModelConfig({ platform: 'slack' }).capabilities.silentPosts).toBe(false);
  });
});

describe('checkFinishedTurn (the promises the kit checks)', () => {
  const entries = [1, 2, 3].map((seq) => turnModelEntry(seq, 'short', 200));
  let seq = 0;
  const call = (over: Partial<RecordedCall>): RecordedCall => ({
    seq: ++seq,
    at: seq,
    method: 'POST',
    path: '/spaces/A/messages',
    op: 'create',
    status: 200,
    space: 'spaces/A',
    thread: 't',
    messageId: 'm1',
    text: null,
    notifies: true,
    mentions: [],
    ...over,
  });
  const lines = (...tags: number[]) =>
    tags.map((n) => `• 12:00:00  ${turnModelEntryTag(n)} tool: x`).join('\n');
  const good = (): FinishedTurn => ({
    entries,
    calls: [
      call({ messageId: 'm1', text: lines(1) }),
      call({ op: 'update', method: 'PATCH', messageId: 'm1', text: lines(1, 2), notifies: false }),
      call({ messageId: 'm2', text: lines(3), notifies: true, details: { silent: true } }),
    ],
    messages: [
      {
        id: 'm1',
        thread: 't',
        text: lines(1, 2),
        createdAt: 0,
        updatedAt: 1,
        edits: 1,
        deleted: false,
        reactions: [],
      },
      {
        id: 'm2',
        thread: 't',
        text: lines(3),
        createdAt: 2,
        updatedAt: null,
        edits: 0,
        deleted: false,
        reactions: [],
      },
    ],
    logMessages: [
      { messageId: 'm1', threadId: 't', final: true },
      { messageId: 'm2', threadId: 't', final: false },
    ],
    deadLetters: [],
    ended: true,
    callsAfterEnd: 0,
    budgetRequests: ['budget.progress.request', 'budget.card.closed'],
    droppedAtEnd: 0,
    silentPosts: false,
    strategy: 'rollover',
    header: null,
  });

  it('accepts a turn that keeps them', () => {
    expect(checkFinishedTurn(good())).toEqual([]);
  });

  it('(a) flags a create the turn does not know of, and a rollover that did not ask to be silent ((f): it repeats an entry)', () => {
    const turn = good();
    const duplicate = call({ messageId: 'm3', text: lines(3) });
    expect(
      checkFinishedTurn({ ...turn, calls: [...turn.calls.slice(0, 2), duplicate, turn.calls[2]!] }),
    ).toEqual([
      '(a) 3 log message(s) created on the platform, but the turn opened 2',
      '(a) log message #2 (m3) was posted without asking to be silent',
      '(f) entries shown in more than one log message: [e3] (m3, m2)',
    ]);
  });

  it('(a) flags a second buzz where posts can be silent', () => {
    expect(checkFinishedTurn({ ...good(), silentPosts: true })).toEqual([
      '(a) 2 notifying post(s) for 2 log message(s); expected 1',
    ]);
  });

  it('(b) flags a turn that never ended, and a call after the end', () => {
    expect(checkFinishedTurn({ ...good(), ended: false, callsAfterEnd: 2 })).toEqual([
      '(b) the turn never reached ended',
      '(b) 2 surface call(s) after the turn ended',
    ]);
  });

  it('(b) flags an ended turn that did not release its budget card exactly once', () => {
    expect(checkFinishedTurn({ ...good(), budgetRequests: ['budget.progress.request'] })).toEqual([
      '(b) the turn told the budget 0 time(s) that its card closed',
    ]);
  });

  it('(c) flags a terminal frame not sent, and a message that does not show the last text sent', () => {
    const turn = good();
    expect(
      checkFinishedTurn({
        ...turn,
        calls: turn.calls.slice(0, 2),
        logMessages: turn.logMessages.slice(0, 1),
      }),
    ).toEqual([
      expect.stringMatching(/^\(c\) the newest entry \[e3\] is not in the last text sent: /),
      '(d) 1 entry never shown nor dead-lettered: [e3]',
    ]);
    const stale = turn.messages.map((m) => (m.id === 'm2' ? { ...m, text: 'something else' } : m));
    expect(checkFinishedTurn({ ...turn, messages: stale })).toEqual([
      expect.stringMatching(/^\(c\) message m2 shows "something else", not the last text sent/),
    ]);
  });

  it('(d) accepts an entry in a dead letter, and flags one that is nowhere', () => {
    const turn = good();
    const lost = turn.calls.map((c) => (c.op === 'update' ? { ...c, text: lines(1) } : c));
    expect(checkFinishedTurn({ ...turn, calls: lost })).toEqual([
      '(d) 1 entry never shown nor dead-lettered: [e2]',
    ]);
    expect(
      checkFinishedTurn({
        ...turn,
        calls: lost,
        deadLetters: [{ reason: 'final edit failed', entries: [entries[1]!] }],
      }),
    ).toEqual([]);
  });

  it('(d) lets a dropping strategy drop as many entries as its dropped markers count, not more', () => {
    const turn = good();
    const dropped = [
      call({ messageId: 'm1', text: lines(1) }),
      call({ messageId: 'm2', text: `• …1 earlier entry dropped\n${lines(3)}`, details: { silent: true } }),
    ];
    const messages = [
      { ...turn.messages[0]!, text: lines(1) },
      { ...turn.messages[1]!, text: dropped[1]!.text! },
    ];
    expect(checkFinishedTurn({ ...turn, calls: dropped, messages, strategy: 'hybrid' })).toEqual([]);
    expect(checkFinishedTurn({ ...turn, calls: dropped, messages, strategy: 'rollover' })).toEqual([
      '(d) 1 entry never shown nor dead-lettered: [e2]',
    ]);
    const noMarker = dropped.map((c) => ({
      ...c,
      text: c.text!.replace(/^• …1 earlier entry dropped\n/, ''),
    }));
    expect(
      checkFinishedTurn({ ...turn, calls: noMarker, messages, strategy: 'hybrid' }).filter((p) =>
        p.startsWith('(d)'),
      ),
    ).toEqual(['(d) 1 entry never shown nor dead-lettered: [e2]']);
    expect(
      checkFinishedTurn({ ...turn, calls: noMarker, messages, strategy: 'hybrid', droppedAtEnd: 1 }).filter(
        (p) => p.startsWith('(d)'),
      ),
    ).toEqual([]);
  });

  /** `good()` as a proactive turn: the header first, top-level; the log in its thread `h`. */
  const proactive = (): FinishedTurn => {
    const turn = good();
    const header = call({ messageId: 'h', thread: null, text: MODEL_HEADER });
    return {
      ...turn,
      header: MODEL_HEADER,
      calls: [header, ...turn.calls.map((c) => ({ ...c, thread: 'h' }))],
    };
  };

  it('(a) counts a proactive turn’s header as one more notifying post, not a log message', () => {
    expect(checkFinishedTurn(proactive())).toEqual([]);
    // Where posts can be silent: the header and the first log message (in the header's thread) notify.
    const silent = proactive();
    const calls = silent.calls.map((c) => (c.messageId === 'm2' ? { ...c, notifies: false } : c));
    expect(checkFinishedTurn({ ...silent, calls, silentPosts: true })).toEqual([]);
    expect(checkFinishedTurn({ ...silent, silentPosts: true })).toEqual([
      '(a) 3 notifying post(s) for 2 log message(s) and the header; expected 2',
    ]);
  });

  it('(e) flags a header posted twice, late, in a thread or silent, and a log message outside its thread', () => {
    const turn = proactive();
    const [header, ...log] = turn.calls;
    const again = { ...header!, messageId: 'h2' };
    expect(checkFinishedTurn({ ...turn, calls: [header!, again, ...log] })).toEqual([
      '(e) the header was posted 2 times',
    ]);
    expect(checkFinishedTurn({ ...turn, calls: [...log, header!] })).toEqual([
      expect.stringMatching(/^\(c\) the newest entry \[e3\] is not in the last text sent/),
      "(e) the header was not the turn's first post",
    ]);
    const threadedSilent = { ...header!, thread: 'x', details: { silent: true } };
    expect(checkFinishedTurn({ ...turn, calls: [threadedSilent, ...log] })).toEqual([
      '(e) the header was posted in thread x',
      '(e) the header was posted silent',
    ]);
    const elsewhere = log.map((c) => (c.messageId === 'm2' ? { ...c, thread: 'other' } : c));
    expect(checkFinishedTurn({ ...turn, calls: [header!, ...elsewhere] })).toEqual([
      "(e) log message m2 is in thread other, not the header's (h)",
    ]);
  });

  it('(e) flags a log message in a thread when the header was never posted', () => {
    const turn = good();
    expect(checkFinishedTurn({ ...turn, header: MODEL_HEADER })).toEqual([
      '(e) the header was never posted, yet log message m1 is in a thread',
      '(e) the header was never posted, yet log message m2 is in a thread',
    ]);
    const topLevel = turn.calls.map((c) => ({ ...c, thread: null }));
    expect(checkFinishedTurn({ ...turn, calls: topLevel, header: MODEL_HEADER })).toEqual([]);
  });

  it('(f) flags an entry two log messages show at the end, not one a rollover moved on', () => {
    const turn = good();
    const [firstPost, firstEdit] = turn.calls;
    const second = call({ messageId: 'm2', text: lines(2, 3), details: { silent: true } });
    const showing = (m1: string) => [
      { ...turn.messages[0]!, text: m1 },
      { ...turn.messages[1]!, text: lines(2, 3) },
    ];
    expect(
      checkFinishedTurn({ ...turn, calls: [firstPost!, firstEdit!, second], messages: showing(lines(1, 2)) }),
    ).toEqual(['(f) entries shown in more than one log message: [e2] (m1, m2)']);
    // m1 showed [e2] for a while, then its final text left it to m2.
    const final = call({ op: 'update', method: 'PATCH', messageId: 'm1', text: lines(1), notifies: false });
    expect(
      checkFinishedTurn({
        ...turn,
        calls: [firstPost!, firstEdit!, final, second],
        messages: showing(lines(1)),
      }),
    ).toEqual([]);
  });
});

describe('checkTurnStep (what a shutdown flush promises, after every step)', () => {
  const newest = turnModelEntry(2, 'short', 200);
  const step = (over: Partial<TurnStep>): TurnStep => ({
    endSent: false,
    ended: false,
    deadLetters: [],
    flushSettled: null,
    ...over,
  });

  it('accepts a flush that settled with the newest entry sent, or with its entries still pending', () => {
    const lastText = `• 12:00:00  ${turnModelEntryTag(2)} tool: x`;
    expect(checkTurnStep(step({ flushSettled: { pending: false, newest, lastText, failures: 0 } }))).toEqual(
      [],
    );
    expect(
      checkTurnStep(step({ flushSettled: { pending: true, newest, lastText: null, failures: 0 } })),
    ).toEqual([]);
  });

  it('flags a turn that ended or dead-lettered before it was told to end, a flush that did not send or left failures counted', () => {
    const letter = { reason: 'final post failed', entries: [newest] };
    expect(checkTurnStep(step({ ended: true, deadLetters: [letter] }))).toEqual([
      '(g) the turn ended without being told to end',
      '(g) 1 dead letter(s) before the turn was told to end',
    ]);
    expect(checkTurnStep(step({ endSent: true, ended: true, deadLetters: [letter] }))).toEqual([]);
    expect(
      checkTurnStep(
        step({ flushSettled: { pending: false, newest, lastText: 'something older', failures: 0 } }),
      ),
    ).toEqual([
      '(g) the flush settled with nothing pending, but the newest entry [e2] is not in the last text sent: "something older"',
    ]);
    expect(
      checkTurnStep(step({ flushSettled: { pending: true, newest, lastText: null, failures: 2 } })),
    ).toEqual(['(g) the flush went on with 2 failed send(s) counted against the next frame']);
  });
});
