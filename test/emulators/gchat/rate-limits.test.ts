// spec: emulators issue item 4 "Rate limits on by default with the docs/http-api.md defaults, configurable, answered
// exactly as the platform answers (status, headers, body)" and item 6 "429 with the right Retry-After".
// Google Chat answers 429 RESOURCE_EXHAUSTED with no Retry-After header (usage limits page: "use an exponential
// backoff algorithm"); the emulator sends none either, and records the exact wait in the call's details.
import { afterEach, describe, expect, it } from 'vitest';
import { GCHAT_DEFAULT_LIMITS } from '../../../src/emulators/gchat/index.js';
import { emulatorCall } from '../inspection.js';
import { failure, type GchatHarness, START_MS, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';

let h: GchatHarness;
afterEach(async () => {
  await h.close();
});

const post = (space: string, text: string) =>
  h.chat.spaces.messages.create({ parent: space, requestBody: { text } });

async function setLimits(rules: unknown[]) {
  await emulatorCall(h.emulator.url, 'limits', { rules });
}

describe('gchat emulator: default limits', () => {
  it('are 60 writes/min per space and 3000 writes/min per project, shown by GET /_emulator/limits', async () => {
    h = await startHarness();
    expect(GCHAT_DEFAULT_LIMITS).toEqual([
      { op: '*', scope: 'space', limit: 60, windowS: 60 },
      { op: '*', scope: 'app', limit: 3000, windowS: 60 },
    ]);
    const res = await fetch(`${h.emulator.url}/_emulator/limits`);
    expect(await res.json()).toEqual({ rules: GCHAT_DEFAULT_LIMITS });
  });

  it('the 61st write in a space within a minute is 429 RESOURCE_EXHAUSTED without Retry-After; reads do not count', async () => {
    h = await startHarness();
    const first = await post(SPACE, 'log');
    // Creates, edits and deletes share the bucket; reads in between are not writes.
    for (let i = 1; i < 60; i += 1) {
      h.clock.increment(100);
      if (i % 2 === 0) await post(SPACE, `log ${i}`);
      else
        await h.chat.spaces.messages.patch({
          name: first.data.name!,
          updateMask: 'text',
          requestBody: { text: `v${i}` },
        });
      if (i % 10 === 0) {
        await h.chat.spaces.messages.get({ name: first.data.name! });
        await h.chat.spaces.get({ name: SPACE });
      }
    }
    h.clock.increment(100);
    const error = await failure(h.chat.spaces.messages.delete({ name: first.data.name! }));

    expect(error.status).toBe(429);
    expect(error.response.headers.get('retry-after')).toBeNull();
    expect(error.response.data.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message:
        "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per space' of service 'chat.googleapis.com' for consumer 'project_number:000000000000'.",
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: expect.objectContaining({ service: 'chat.googleapis.com', quota_limit_value: '60' }),
        },
        expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.Help' }),
      ],
    });
    const refused = h.emulator.state.calls().at(-1)!;
    // The first write left the window 60 s after it was made, 6 s ago: 54 s to wait, exactly.
    expect(refused).toMatchObject({
      op: 'delete',
      status: 429,
      notifies: false,
      details: { rejectedBy: 'rate-limit', bucket: '*:space:spaces/AAAA:60s', retryAfterS: 54 },
    });
    expect(h.emulator.state.messages(SPACE)[0]!.deleted).toBe(false);

    // Another space has its own quota; this one has room again once the first write left the window.
    expect((await post('spaces/BBBB', 'elsewhere')).status).toBe(200);
    h.clock.increment(54_000);
    expect((await h.chat.spaces.messages.delete({ name: first.data.name! })).status).toBe(200);
    expect(h.clock.now()).toBe(START_MS + 60_000);
  });

  it('the per-project limit counts writes in every space of one app, not another app’s', async () => {
    h = await startHarness();
    await setLimits([{ op: '*', scope: 'app', limit: 3, windowS: 60 }]);
    for (const space of ['spaces/A1', 'spaces/A2', 'spaces/A3']) await post(space, 'x');
    const error = await failure(post('spaces/A4', 'x'));
    expect(error.response.data.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(error.message).toContain("limit 'Message write requests per minute'");
    const other = await h.otherApp.spaces.messages.create({
      parent: 'spaces/A4',
      requestBody: { text: 'x' },
    });
    expect(other.status).toBe(200);
  });

  it('a tiny per-space limit set through POST /_emulator/limits refuses the next write', async () => {
    h = await startHarness();
    await setLimits([{ op: '*', scope: 'space', limit: 1, windowS: 10 }]);
    await post(SPACE, 'one');
    h.clock.increment(2_500);
    const error = await failure(post(SPACE, 'two'));
    expect(error.status).toBe(429);
    expect(h.emulator.state.calls().at(-1)!.details).toMatchObject({ retryAfterS: 7.5 });
    h.clock.increment(7_500);
    expect((await post(SPACE, 'two')).status).toBe(200);
  });

  it('limits: [] turns the limits off', async () => {
    h = await startHarness({ limits: [] });
    for (let i = 0; i < 61; i += 1) await post(SPACE, `log ${i}`);
    expect(h.emulator.state.calls().every((call) => call.status === 200)).toBe(true);
  });
});
