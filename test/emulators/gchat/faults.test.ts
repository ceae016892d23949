// spec: docs/emulators.md `POST /_emulator/faults` — injected failures reach the official client as its normal
// error type (gaxios' GaxiosError) with Google's error envelope, and change nothing.
import { GaxiosError } from 'googleapis-common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorCall } from '../inspection.js';
import { failure, type GchatHarness, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function injectFaults(rules: unknown[]) {
  await emulatorCall(h.emulator.url, 'faults', { rules });
}

describe('gchat emulator: fault injection through the client', () => {
  it.each([
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
  ])(
    'a %i fault on create throws GaxiosError with status %s and creates nothing',
    async (status, googleStatus) => {
      await injectFaults([{ op: 'create', status, times: 1 }]);
      const error = await failure(
        h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'log' } }),
      );
      expect(error).toBeInstanceOf(GaxiosError);
      expect(error.status).toBe(status);
      expect(error.response.data.error).toMatchObject({ code: status, status: googleStatus });
      expect(h.emulator.state.messages(SPACE)).toEqual([]);
      expect(h.emulator.state.calls()).toEqual([
        expect.objectContaining({
          op: 'create',
          status,
          notifies: false,
          details: expect.objectContaining({ rejectedBy: 'fault' }),
        }),
      ]);
      // `times: 1`: the next call goes through.
      expect(
        (await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'log' } })).status,
      ).toBe(200);
    },
  );

  it('a fault matched by path fails only edits of that message and leaves it unedited', async () => {
    const { data } = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'v1' } });
    const id = data.name!.split('/').pop()!;
    await injectFaults([{ method: 'PATCH', path: id, status: 500 }]);
    const error = await failure(
      h.chat.spaces.messages.patch({ name: data.name!, updateMask: 'text', requestBody: { text: 'v2' } }),
    );
    expect(error).toBeInstanceOf(GaxiosError);
    expect(error.status).toBe(500);
    expect(h.emulator.state.messages(SPACE)[0]).toMatchObject({ text: 'v1', edits: 0 });
    // Another message of the space is not affected.
    expect(
      (await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'other' } })).status,
    ).toBe(200);
  });

  it('an injected 429 with retryAfterS answers RESOURCE_EXHAUSTED with that Retry-After (the test asked for it)', async () => {
    await injectFaults([{ op: 'update', status: 429, retryAfterS: 2.2, times: 1 }]);
    const { data } = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'v1' } });
    const error = await failure(
      h.chat.spaces.messages.patch({ name: data.name!, updateMask: 'text', requestBody: { text: 'v2' } }),
    );
    expect(error.status).toBe(429);
    expect(error.response.headers.get('retry-after')).toBe('3');
    expect(error.response.data.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });

  it('an injected 429 without retryAfterS sends no Retry-After, as Google does', async () => {
    await injectFaults([{ op: 'create', status: 429 }]);
    const error = await failure(h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'x' } }));
    expect(error.status).toBe(429);
    expect(error.response.headers.get('retry-after')).toBeNull();
  });
});
