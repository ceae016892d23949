// Issue 22 ("Also fix, smaller"): "In a space with threads off, a turn's last log line can land after its
// answer. The log flush must precede the answer." With threads off a turn's log lines go top-level through the
// space's stray log, beside the answer: a line still waiting (its edit refused with a 429) when the answer came
// landed after the answer on all three platforms; the stray log is flushed first now.
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import type { RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import type { E2EBasics } from './shared/platform-e2e.js';
import { startSlackE2E } from './slack/harness.js';

type Harness = E2EBasics<EmulatorServer> & {
  userMessage(ref: string): Promise<{ messageId: string }>;
  advance(ms: number): Promise<void>;
};

const config = { visibility: { threads: false } };
const PLATFORMS: { id: string; start: () => Promise<Harness> }[] = [
  { id: 'gchat', start: () => startGchatE2E({ config }) },
  { id: 'slack', start: () => startSlackE2E({ config }) },
  { id: 'discord', start: () => startDiscordE2E({ config }) },
];

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const landed = (c: RecordedCall) => c.status < 300 && c.details?.error === undefined;

describe.each(PLATFORMS)('$id E2E, threads off: the log flush precedes the answer', ({ start }) => {
  it('the log line pending when the answer arrives lands before the answer', async () => {
    e = await start();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Flush first' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'first.ts' } });
    await e.advance(3000);
    // The edit with the last line is refused once (429, retry in 3 s): the line waits while the answer comes.
    await e.faults([{ op: 'update', status: 429, retryAfterS: 3, times: 1 }]);
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'last-line.ts' } });
    await e.advance(1200);
    e.send({ type: 'answer', turnId: 'T1', text: 'The answer.' });
    await e.advance(5000);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);

    const writes = e.calls().filter((c) => landed(c) && (c.op === 'create' || c.op === 'update'));
    const answer = writes.findIndex((c) => c.op === 'create' && (c.text ?? '').includes('The answer.'));
    const lastLine = writes.findIndex((c) => /last-l/.test(c.text ?? ''));
    expect(answer).toBeGreaterThan(-1);
    expect(lastLine).toBeGreaterThan(-1);
    expect(lastLine).toBeLessThan(answer);
    expect(writes.every((c) => c.thread === null || c.thread === undefined)).toBe(true);
  });
});
