/**
 * Discord end to end: a secret in every field an agent host sends never
 * reaches Discord — not in a log line, a card, an answer or a thread name.
 */
import { afterEach, expect, it } from 'vitest';
import { type DiscordE2E, startDiscordE2E } from './harness.js';

let e: DiscordE2E;
afterEach(async () => {
  await e.stop();
});

const KEY = `sk-ant-api03-${'Xq9'.repeat(12)}AbCdEf`;
const LEAK = `ANTHROPIC_API_KEY=${KEY}`;

it('a secret in every field reaches no Discord call', async () => {
  e = await startDiscordE2E();
  await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: `deploy ${LEAK}` });
  e.send({
    type: 'tool_call',
    turnId: 'T1',
    callId: 'c1',
    tool: 'Bash',
    input: { command: `export ${LEAK}` },
    summary: LEAK,
  });
  e.send({
    type: 'tool_result',
    turnId: 'T1',
    callId: 'c1',
    tool: 'Bash',
    ok: false,
    output: LEAK,
    summary: LEAK,
  });
  e.send({ type: 'assistant', turnId: 'T1', text: LEAK });
  e.send({ type: 'note', turnId: 'T1', text: LEAK, level: 'warn' });
  e.send({ type: 'command', turnId: 'T1', command: `echo ${LEAK}`, output: LEAK });
  e.send({
    type: 'policy_request',
    turnId: 'T1',
    requestId: 'r1',
    command: 'env',
    args: [LEAK],
    title: LEAK,
  });
  e.send({ type: 'answer', turnId: 'T1', text: `the key was ${LEAK}` });
  e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  await e.advance(8000);
  const calls = e.calls();
  expect(calls.filter((c) => c.op === 'create').length).toBeGreaterThanOrEqual(2);
  // The calls carry what was sent (text, thread names): the redacted form is there, the key is not.
  expect(JSON.stringify(calls)).toContain('ANTHROPIC_API_KEY');
  expect(JSON.stringify(calls)).not.toContain(KEY);
  expect(JSON.stringify(e.emulator.state.messages('1800000000000000001'))).not.toContain(KEY);
});
