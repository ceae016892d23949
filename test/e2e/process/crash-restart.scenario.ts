/**
 * The kill -9 restart scenario (issue "turnlog serve and the demo", item 4;
 * issue 23.1 on Postgres): `turnlog serve` against the Google Chat emulator;
 * half a turn; `kill -9`; serve again on the same store; the rest of the
 * turn. The same log message keeps being edited, no duplicate log message,
 * no lost entry, the answer posted once — asserted on the emulator's own
 * calls and messages. `store`: the config's `store` (default: a SQLite file).
 */
import { once } from 'node:events';
import { expect, vi } from 'vitest';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { firstLine } from '../../cli/cli.helpers.js';
import { serveConfigFile, startServeProcess } from './serve-process.js';

const SPACE = 'gchat:spaces/CRASH';
async function post(url: string, events: Record<string, unknown>[]): Promise<{ accepted: number }> {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: events.map((e) => JSON.stringify({ space: SPACE, ...e })).join('\n'),
  });
  expect(response.status).toBe(202);
  return (await response.json()) as { accepted: number };
}

const toolCall = (i: number) => ({
  type: 'tool_call',
  turnId: 'T1',
  callId: `c${i}`,
  tool: 'Read',
  input: { path: `file-${i}.ts` },
});

export async function killNineAndRestart(
  cleanups: (() => Promise<void> | void)[],
  store?: Record<string, unknown>,
): Promise<void> {
  const emulator = await startGchatEmulator({ limits: [] } satisfies GchatEmulatorOptions);
  cleanups.push(() => emulator.close());
  const configPath = serveConfigFile('turnlog-crash-', { gchat: { apiUrl: emulator.url } }, cleanups, store);
  const root = emulator.state.inbound({ space: 'spaces/CRASH', text: 'please fix the build' });

  // First process: half a turn.
  const first = startServeProcess(configPath, cleanups);
  const { ingest: url1 } = JSON.parse(await firstLine(first)) as { ingest: string };
  await post(url1, [
    { type: 'inbound', messageId: root.messageId, threadId: root.threadId, ref: 'u1' },
    { type: 'turn_started', turnId: 'T1', rootRef: 'u1' },
    toolCall(1),
    toolCall(2),
    toolCall(3),
  ]);
  const logCreates = () =>
    emulator.state.calls().filter((c) => c.op === 'create' && c.status < 300 && c.thread === root.threadId);
  await vi.waitFor(() => expect(logCreates()).toHaveLength(1), { timeout: 20_000, interval: 50 });
  const logMessageId = logCreates()[0]?.messageId;
  await vi.waitFor(
    () => {
      const text = emulator.state.messages('spaces/CRASH').find((m) => m.id === logMessageId)?.text ?? '';
      expect(text).toContain('file-3.ts');
    },
    { timeout: 20_000, interval: 50 },
  );
  // Accepted but (maybe) not yet shown when the process dies.
  await post(url1, [toolCall(4)]);
  first.kill('SIGKILL');
  await once(first, 'exit');

  // Second process, same database: the rest of the turn.
  const second = startServeProcess(configPath, cleanups);
  const { ingest: url2 } = JSON.parse(await firstLine(second)) as { ingest: string };
  await post(url2, [
    toolCall(5),
    { type: 'answer', turnId: 'T1', text: 'Fixed.' },
    { type: 'turn_ended', turnId: 'T1', outcome: 'ok' },
  ]);
  await vi.waitFor(
    async () => {
      const view = (await (await fetch(`${url2}/v1/turns/T1`)).json()) as {
        state?: string;
        answerPartsPending?: number;
      };
      expect(view).toMatchObject({ state: 'ended', answerPartsPending: 0 });
    },
    { timeout: 30_000, interval: 100 },
  );

  expect(logCreates()).toHaveLength(1);
  const edits = emulator.state.calls().filter((c) => c.op === 'update' && c.status < 300);
  expect(new Set(edits.map((c) => c.messageId))).toEqual(new Set([logMessageId]));
  const text = emulator.state.messages('spaces/CRASH').find((m) => m.id === logMessageId)?.text ?? '';
  for (let i = 1; i <= 5; i++) expect(text).toContain(`file-${i}.ts`);
  expect(emulator.state.messages('spaces/CRASH').filter((m) => m.text.includes('file-1.ts'))).toHaveLength(1);
  // The answer follows the card's final frame: `answerPartsPending: 0` says it was posted.
  const answers = () => emulator.state.calls().filter((c) => c.op === 'create' && c.text === 'Fixed.');
  expect(answers()).toHaveLength(1);

  second.kill('SIGTERM');
  const [code] = await once(second, 'exit');
  expect(code).toBe(0);
  expect(answers()).toHaveLength(1);
}
