import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/events/schema.js';
import { condenseTurnLog, TRUNCATION_CAPS } from '../../src/turnlog/condense.js';
import {
  completeToolCall,
  formatTurnLogEntry,
  isPendingCall,
  renderEntryLineAtCap,
} from '../../src/turnlog/format.js';
import {
  appendEntry,
  createTurnLog,
  entriesAtRevision,
  MAX_PENDING_CALLS,
  messageEntryCount,
  messageRevisions,
  renderTurnLog,
  startNextMessage,
  type TurnLogState,
  turnLogFromEntries,
} from '../../src/turnlog/log.js';
import {
  CONDENSE_STRATEGIES,
  type CondenseOpts,
  type CondenseResult,
  type TurnLogEntry,
} from '../../src/turnlog/types.js';
import { entriesArb, fixedEntries, maxCharsArb, toolEntry } from './entries.js';

const textOf = (result: CondenseResult): string => (result.kind === 'fits' ? result.text : result.finalText);

/** The lengths the state claims, recomputed from its window. */
function measured(window: readonly TurnLogEntry[]): number[] {
  return [undefined, ...TRUNCATION_CAPS].map(
    (cap) => window.map((e) => renderEntryLineAtCap(e, cap)).join('\n').length,
  );
}

/** Every line is ≥ 13 chars and all but the newest fit maxChars: the window cannot grow with the turn. */
const windowBound = (maxChars: number): number => Math.floor((maxChars + 2) / 14) + 2;

/** Drains a log like the runtime does: render, finalize, carry on; returns every text posted. */
function drain(state: TurnLogState, opts: CondenseOpts): string[] {
  const texts: string[] = [];
  let current = state;
  for (;;) {
    const result = renderTurnLog(current, opts);
    texts.push(textOf(result));
    if (result.kind === 'fits') return texts;
    current = startNextMessage(current, opts);
  }
}

describe('turn log state', () => {
  it('starts empty and renders nothing', () => {
    expect(renderTurnLog(createTurnLog())).toEqual({ kind: 'fits', text: '', lines: [] });
    expect(messageEntryCount(createTurnLog())).toBe(0);
  });

  it('is plain JSON: a serialised state round-trips and keeps working', () => {
    const opts = { maxChars: 200, strategy: 'rollover' } as const;
    const state = turnLogFromEntries(fixedEntries(12, 40), opts);
    const revived = JSON.parse(JSON.stringify(state)) as TurnLogState;
    expect(revived).toEqual(state);
    const next = toolEntry('tool: after restart', 13);
    expect(renderTurnLog(appendEntry(revived, next, opts), opts)).toEqual(
      renderTurnLog(appendEntry(state, next, opts), opts),
    );
  });

  it('keeps the window bounded by maxChars through 10,000 entries, for every strategy', () => {
    const entries = fixedEntries(10_000, 60);
    for (const strategy of CONDENSE_STRATEGIES) {
      const opts = { maxChars: 3500, strategy };
      let state = createTurnLog();
      let widest = 0;
      for (const entry of entries) {
        state = appendEntry(state, entry, opts);
        widest = Math.max(widest, state.window.length);
      }
      expect(widest, strategy).toBeLessThanOrEqual(windowBound(3500));
      expect(messageEntryCount(state), strategy).toBe(10_000);
      expect(state.windowChars).toEqual(measured(state.window));
    }
  });

  // spec: Overflow handling "On rollover … reset entries to carryEntries" — nothing is lost in a burst.
  it('rollover: a 10,000-entry burst between flushes drains into messages holding every entry once, in order', () => {
    const opts = { maxChars: 500, strategy: 'rollover' } as const;
    const entries = fixedEntries(10_000, 45);
    const state = entries.reduce((s, e) => appendEntry(s, e, opts), createTurnLog());
    expect(state.sealed.length).toBeGreaterThan(900);
    const texts = drain(state, opts);
    const seqs = texts.flatMap((t) => [...t.matchAll(/tool: step (\d+) /g)].map((m) => Number(m[1])));
    expect(seqs).toEqual(entries.map((e) => e.seq));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(500);
    expect(texts.slice(0, -1).every((t) => t.endsWith('• …log continues'))).toBe(true);
  });

  it('startNextMessage carries what the sent frame did not show when entries arrived after it', () => {
    const opts = { maxChars: 200, strategy: 'rollover' } as const;
    let state = turnLogFromEntries(fixedEntries(6, 40), opts);
    const frame = renderTurnLog(state, opts);
    if (frame.kind !== 'rollover') throw new Error('expected a rollover');
    const shown = messageEntryCount(state) - frame.carryEntries.length;
    state = appendEntry(state, toolEntry('tool: step 7 late', 7), opts);
    state = startNextMessage(state, opts, shown);
    expect(renderTurnLog(state, opts)).toEqual(
      condenseTurnLog([...frame.carryEntries, toolEntry('tool: step 7 late', 7)], opts),
    );
  });

  it('startNextMessage after abandoning a message keeps only the entries its last edit did not show', () => {
    const opts = { maxChars: 200, strategy: 'rollover' } as const;
    const entries = fixedEntries(9, 40);
    // Two full messages are sealed; the last successful edit showed only 2 entries of the first.
    const state = turnLogFromEntries(entries, opts);
    expect(state.sealed).toHaveLength(2);
    const next = startNextMessage(state, opts, 2);
    expect(messageEntryCount(next)).toBe(7);
    expect(drain(next, opts).join('\n')).toBe(
      drain(turnLogFromEntries(entries.slice(2), opts), opts).join('\n'),
    );
    // Abandoning an unsealed message keeps the unshown tail of its window.
    const open = turnLogFromEntries(fixedEntries(3, 40), opts);
    expect(startNextMessage(open, opts, 1).window.map((e) => e.seq)).toEqual([2, 3]);
  });

  it('startNextMessage rejects a shown count the message does not have', () => {
    const state = turnLogFromEntries(fixedEntries(3, 40));
    expect(() => startNextMessage(state, {}, 4)).toThrow(
      /shownEntries must be an integer from 0 to the message's 3 entries, got 4/,
    );
    expect(() => startNextMessage(state, {}, -1)).toThrow(/got -1/);
  });

  it('drop-earliest: a new message after a failed edit starts with a fresh count', () => {
    const opts = { maxChars: 200, strategy: 'drop-earliest' } as const;
    const state = turnLogFromEntries(fixedEntries(20, 40), opts);
    expect(state.dropped).toBeGreaterThan(0);
    const fresh = startNextMessage(state, opts);
    expect(renderTurnLog(fresh, opts)).toEqual({ kind: 'fits', text: '', lines: [] });
    expect(messageEntryCount(fresh)).toBe(0);
  });

  it('re-condenses a message sealed under a larger maxChars when the budget shrinks', () => {
    const wide = { maxChars: 400, strategy: 'rollover' } as const;
    const narrow = { maxChars: 150, strategy: 'rollover' } as const;
    const entries = fixedEntries(12, 40);
    const state = turnLogFromEntries(entries, wide);
    expect(state.sealed[0]!.text.length).toBeGreaterThan(150);
    const result = renderTurnLog(state, narrow);
    expect(result).toEqual(condenseTurnLog(entries, narrow));
    expect(drain(state, narrow).every((text) => text.length <= 150)).toBe(true);
  });

  it('never exceeds maxChars even when the options change mid-message', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            entry: entriesArb(1),
            strategy: fc.constantFrom(...CONDENSE_STRATEGIES),
            maxChars: maxCharsArb,
          }),
          { maxLength: 40 },
        ),
        (steps) => {
          let state = createTurnLog();
          for (const { entry, strategy, maxChars } of steps) {
            if (entry[0] !== undefined) state = appendEntry(state, entry[0], { strategy, maxChars });
            const result = renderTurnLog(state, { strategy, maxChars });
            expect(textOf(result).length).toBeLessThanOrEqual(maxChars);
            if (result.kind === 'rollover') state = startNextMessage(state, { strategy, maxChars });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('tool calls completed in place', () => {
  const space = 'gchat:spaces/A';
  const turnId = 'T1';
  const at = Date.UTC(2024, 4, 1, 12, 4, 2);
  const entryOf = (event: RunEvent): TurnLogEntry => {
    const entry = formatTurnLogEntry(event, { timeZone: 'UTC' });
    if (entry === null) throw new Error(`no entry for ${event.type}`);
    return entry;
  };
  const call = (callId: string, pattern: string, seq: number) =>
    entryOf({ type: 'tool_call', space, turnId, at, seq, callId, tool: 'Grep', input: { pattern } });
  const result = (callId: string, seq: number, extra: Partial<RunEvent & { type: 'tool_result' }> = {}) =>
    entryOf({
      type: 'tool_result',
      space,
      turnId,
      at: at + 2000,
      seq,
      callId,
      tool: 'Grep',
      ok: true,
      ...extra,
    });
  const opts = { maxChars: 3500, strategy: 'rollover' } as const;
  const linesOf = (state: TurnLogState) => {
    const rendered = renderTurnLog(state, opts);
    return rendered.kind === 'fits' ? rendered.lines : rendered.finalLines;
  };

  it('turns the pending call line into its result, with the status on the frame line', () => {
    let state = appendEntry(createTurnLog(), call('a', 'TODO', 1), opts);
    state = appendEntry(state, call('b', 'FIXME', 2), opts);
    expect(linesOf(state).map((l) => [l.status, l.text])).toEqual([
      ['pending', 'Grep("TODO")'],
      ['pending', 'Grep("FIXME")'],
    ]);
    state = appendEntry(state, result('b', 3, { ok: false, exitCode: 2, output: 'bad regex' }), opts);
    state = appendEntry(state, result('a', 4, { output: '7 matches' }), opts);
    expect(linesOf(state).map((l) => [l.status, l.time, l.text])).toEqual([
      ['ok', '12:04:02', 'Grep("TODO") — 7 matches'],
      ['failed', '12:04:02', 'Grep("FIXME") — exit 2 · bad regex'],
    ]);
    // Re-measured in place; nothing lost: each call keeps its seq and names the result that completed it.
    expect(state.windowChars).toEqual(measured(state.window));
    expect(state.window.map((e) => [e.seq, e.resultSeq])).toEqual([
      [1, 4],
      [2, 3],
    ]);
    expect(messageEntryCount(state)).toBe(2);
    expect(messageRevisions(state)).toBe(4);
    // A frame rendered after the 2nd revision covered 2 entries; after the 3rd (a completion), still 2.
    expect([1, 2, 3, 4].map((r) => entriesAtRevision(state, r))).toEqual([1, 2, 2, 2]);
  });

  it('shows a result on its own line, naming its call, when its call is in a finalized message, or never came', () => {
    let state = appendEntry(createTurnLog(), call('a', 'TODO', 1), opts);
    state = startNextMessage(state, opts); // the message showing the call was finalized
    expect(state.completions).toBeUndefined();
    state = appendEntry(state, result('a', 2, { output: '7 matches' }), opts);
    state = appendEntry(state, result('ghost', 3, { output: '1 match' }), opts);
    // It still names the call it completes; one with no known call shows the tool alone.
    expect(linesOf(state).map((l) => [l.status, l.time, l.text])).toEqual([
      ['ok', '12:04:04', 'Grep("TODO") — 7 matches'],
      ['ok', '12:04:04', 'Grep — 1 match'],
    ]);
    expect(state.window.map((e) => [e.seq, e.resultSeq])).toEqual([
      [2, 2],
      [3, undefined],
    ]);
    expect(messageRevisions(state)).toBe(2);
    expect(state.calls).toEqual({});
  });

  it('remembers at most MAX_PENDING_CALLS calls awaiting a result, forgetting the oldest', () => {
    let state = createTurnLog();
    for (let i = 0; i < MAX_PENDING_CALLS + 10; i++)
      state = appendEntry(state, call(`c${i}`, `p${i}`, i + 1), opts);
    const keys = Object.keys(state.calls ?? {});
    expect(keys).toHaveLength(MAX_PENDING_CALLS);
    expect(keys[0]).toBe('c10');
    // A result for a forgotten call still shows, as the tool alone.
    state = startNextMessage(state, opts, messageEntryCount(state));
    state = appendEntry(state, result('c0', 9999, { output: 'x' }), opts);
    expect(linesOf(state).map((l) => [l.status, l.text])).toEqual([['ok', 'Grep — x']]);
  });

  it('does not complete a call sealed into a full message: the result, naming it, follows in the next one', () => {
    const small = { maxChars: 100, strategy: 'rollover' } as const;
    let state = appendEntry(createTurnLog(), call('a', 'a'.repeat(20), 1), small);
    state = appendEntry(state, call('b', 'b'.repeat(20), 2), small);
    state = appendEntry(state, call('c', 'c'.repeat(20), 3), small);
    expect(state.sealed).toHaveLength(1);
    state = appendEntry(state, result('a', 4, { output: 'none' }), small);
    state = appendEntry(state, result('c', 5, { output: 'one' }), small);
    const texts = drain(state, small);
    expect(texts[0]).toContain('⋯ Grep("aaa');
    expect(texts.at(-1)).toContain('✓ Grep("ccc');
    expect(texts.at(-1)).toContain(`✓ Grep("${'a'.repeat(20)}") — none`);
  });
});

describe('turn log ≡ condenseTurnLog (property)', () => {
  type Step =
    | { kind: 'entry'; text: string; depth: number }
    | { kind: 'result'; pick: number; ok: boolean }
    | { kind: 'flush'; finalizeLater: boolean };
  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .record({ pick: fc.nat(), ok: fc.boolean() })
        .map(({ pick, ok }) => ({ kind: 'result' as const, pick, ok })),
    },
    {
      weight: 5,
      arbitrary: entriesArb(1)
        .filter((e) => e.length === 1)
        .map((e) => ({ kind: 'entry' as const, text: e[0]!.summary, depth: e[0]!.depth ?? 0 })),
    },
    {
      weight: 1,
      arbitrary: fc.boolean().map((finalizeLater) => ({ kind: 'flush' as const, finalizeLater })),
    },
  );

  it('renders exactly what condenseTurnLog gives for the message’s entries, for every strategy', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 80 }),
        maxCharsArb,
        fc.constantFrom(...CONDENSE_STRATEGIES),
        (steps, maxChars, strategy) => {
          const opts = { maxChars, strategy };
          let state = createTurnLog();
          let message: TurnLogEntry[] = []; // the reference: every entry of the open message
          let pendingShown: number | null = null; // a rollover frame sent, not yet finalized
          let seq = 0;
          const check = () => {
            expect(renderTurnLog(state, opts)).toEqual(condenseTurnLog(message, opts));
            expect(messageEntryCount(state)).toBe(message.length);
            expect(state.windowChars).toEqual(measured(state.window));
            expect(state.window.length).toBeLessThanOrEqual(windowBound(maxChars));
          };
          const finalize = (shown: number) => {
            state = startNextMessage(state, opts, shown);
            message = message.slice(shown);
          };
          for (const step of steps) {
            if (step.kind === 'result') {
              if (seq === 0) continue;
              const callId = `c${1 + (step.pick % seq)}`;
              const result: TurnLogEntry = {
                ...toolEntry('R', ++seq),
                callId,
                status: step.ok ? 'ok' : 'failed',
                outcome: step.ok ? '' : 'exit 1',
                messageRole: 'tool_result',
              };
              const pending = (e: TurnLogEntry) => e.callId === callId && isPendingCall(e);
              const inWindow = state.window.some(pending);
              const target = state.calls?.[callId];
              const revisions = messageRevisions(state);
              state = appendEntry(state, result, opts);
              // The reference: the call completed in place while its window holds it, else a line of its own.
              const at = message.findLastIndex(pending);
              if (inWindow) message[at] = completeToolCall(message[at]!, result);
              else if (target === undefined) message.push(result);
              else
                message.push(
                  completeToolCall({ ...result, summary: target, rawLength: target.length }, result),
                );
              expect(messageRevisions(state)).toBe(revisions + 1);
              continue;
            }
            if (step.kind === 'entry') {
              const entry: TurnLogEntry = {
                ...toolEntry(step.text, ++seq),
                depth: step.depth,
                callId: `c${seq}`,
                status: 'pending',
              };
              const before = structuredClone(state);
              const next = appendEntry(state, entry, opts);
              expect(state).toEqual(before); // pure
              state = next;
              message.push(entry);
            } else {
              if (pendingShown !== null) finalize(pendingShown);
              pendingShown = null;
              check();
              const result = renderTurnLog(state, opts);
              if (result.kind === 'rollover') {
                const shown = message.length - result.carryEntries.length;
                if (step.finalizeLater) pendingShown = shown;
                else finalize(shown);
              }
            }
          }
          if (pendingShown !== null) finalize(pendingShown);
          check();
        },
      ),
      { numRuns: 250 },
    );
  });
});
