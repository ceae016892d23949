// spec: emulators issue item 6 — "a contract test that checks responses and errors against the platform's
// published reference". Checked on the wire (raw HTTP), field by field, against:
//
// [errors]  Google API design guide, "Errors" — https://cloud.google.com/apis/design/errors
//           HTTP body: {"error": {"code": <HTTP status>, "message": <developer-facing text>, "status": <google.rpc.Code
//           name>, "details": [...]}}; ErrorInfo detail: {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
//           "reason", "domain", "metadata": {string: string}}.
// [code]    google.rpc.Code "HTTP Mapping" — https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto
//           400 INVALID_ARGUMENT, 403 PERMISSION_DENIED, 404 NOT_FOUND, 409 ALREADY_EXISTS / ABORTED,
//           429 RESOURCE_EXHAUSTED, 500 INTERNAL, 503 UNAVAILABLE.
// [create]  spaces.messages.create — https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create
//           POST /v1/{parent=spaces/*}/messages; query threadKey, requestId, messageReplyOption, messageId;
//           "The maximum message size, including the message contents, is 32,000 bytes."
// [message] Message resource — https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages
//           name "spaces/{space}/messages/{message}", thread.name "spaces/{space}/threads/{thread}", createTime and
//           lastUpdateTime RFC 3339 timestamps ("Z"-normalized), sender.type HUMAN | BOT, threadReply, clientAssignedMessageId.
// [patch]   spaces.messages.patch / update — PATCH|PUT /v1/{message.name=spaces/*/messages/*}; updateMask "Required".
// [delete]  spaces.messages.delete — DELETE /v1/{name=spaces/*/messages/*}; "If successful, the response body is an
//           empty JSON object."
// [space]   Space resource — https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces
//           spaceType SPACE | GROUP_CHAT | DIRECT_MESSAGE; spaceThreadingState THREADED_MESSAGES | GROUPED_MESSAGES |
//           UNTHREADED_MESSAGES; singleUserBotDm boolean.
// [limits]  Usage limits — https://developers.google.com/workspace/chat/limits
//           "If you exceed a quota, you'll receive a 429: Too many requests HTTP status code response" … "use an
//           exponential backoff algorithm" (no Retry-After is documented); message writes 3000 per 60 s per project;
//           per-space writes 60 per 60 s.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GchatHarness, personPosts, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';
// [code]
const CANONICAL: Record<number, string[]> = {
  400: ['INVALID_ARGUMENT'],
  403: ['PERMISSION_DENIED'],
  404: ['NOT_FOUND'],
  409: ['ALREADY_EXISTS', 'ABORTED'],
  429: ['RESOURCE_EXHAUSTED'],
  500: ['INTERNAL'],
  503: ['UNAVAILABLE'],
};
// [errors] + RFC 3339 with a "Z" offset [message]
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function http(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.emulator.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function expectGoogleError(res: { status: number; headers: Headers; body: unknown }, httpStatus: number) {
  expect(res.status).toBe(httpStatus);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = res.body as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(httpStatus);
  expect(CANONICAL[httpStatus]).toContain(body.error.status);
  expect(typeof body.error.message).toBe('string');
  expect((body.error.message as string).length).toBeGreaterThan(0);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'status', 'details']).toContain(key);
}

describe('gchat emulator contract: error envelope [errors] [code]', () => {
  it('every refusal is {error: {code, message, status}} with the canonical code for its HTTP status', async () => {
    const created = await http('POST', `/v1/${SPACE}/messages?messageId=client-a`, { text: 'x' });
    const name = created.body.name as string;
    const person = await personPosts(h.emulator, { space: SPACE, text: 'mine' });

    expectGoogleError(await http('PATCH', `/v1/${name}?updateMask=nope`, { text: 'y' }), 400);
    expectGoogleError(await http('POST', `/v1/${SPACE}/messages`, { text: 'x', bogus: 1 }), 400);
    expectGoogleError(await http('PATCH', `/v1/${person.messageId}?updateMask=text`, { text: 'y' }), 403);
    expectGoogleError(await http('GET', `/v1/${SPACE}/messages/nope.nope`), 404);
    expectGoogleError(await http('POST', `/v1/${SPACE}/messages?messageId=client-a`, { text: 'x' }), 409);
    expectGoogleError(await http('GET', '/v1/rooms/AAAA'), 404);

    await http('POST', '/_emulator/faults', {
      rules: [
        { op: 'create', status: 500, times: 1 },
        { op: 'create', status: 503, times: 1 },
      ],
    });
    expectGoogleError(await http('POST', `/v1/${SPACE}/messages`, { text: 'x' }), 500);
    expectGoogleError(await http('POST', `/v1/${SPACE}/messages`, { text: 'x' }), 503);
  });

  it('over the per-space write quota: 429 RESOURCE_EXHAUSTED with an ErrorInfo of string metadata and no Retry-After [limits]', async () => {
    for (let i = 0; i < 60; i += 1)
      expect((await http('POST', `/v1/${SPACE}/messages`, { text: `${i}` })).status).toBe(200);
    const res = await http('POST', `/v1/${SPACE}/messages`, { text: 'one too many' });
    expectGoogleError(res, 429);
    expect(res.headers.get('retry-after')).toBeNull();
    const [errorInfo] = res.body.error.details as Array<Record<string, unknown>>;
    expect(errorInfo).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'RATE_LIMIT_EXCEEDED',
      domain: 'googleapis.com',
    });
    const metadata = errorInfo!.metadata as Record<string, unknown>;
    expect(Object.values(metadata).every((value) => typeof value === 'string')).toBe(true);
    expect(metadata).toMatchObject({ service: 'chat.googleapis.com', quota_limit_value: '60' });
  });
});

describe('gchat emulator contract: resources [message] [space] [create] [patch] [delete]', () => {
  it('a created Message has the reference’s names, timestamps, sender type and thread fields', async () => {
    const person = await personPosts(h.emulator, { space: SPACE, text: 'root' });
    const res = await http(
      'POST',
      `/v1/${SPACE}/messages?messageReplyOption=REPLY_MESSAGE_OR_FAIL&messageId=client-log-1&requestId=r-1`,
      { text: 'log', thread: { name: person.threadId } },
    );
    expect(res.status).toBe(200);
    const message = res.body;
    expect(message.name).toMatch(/^spaces\/AAAA\/messages\/[^/]+$/);
    expect(message.thread.name).toMatch(/^spaces\/AAAA\/threads\/[^/]+$/);
    expect(message.thread.name).toBe(person.threadId);
    expect(message.createTime).toMatch(RFC3339_UTC);
    expect(['BOT', 'HUMAN']).toContain(message.sender.type);
    expect(message.sender.name).toMatch(/^users\//);
    expect(message).toMatchObject({
      threadReply: true,
      clientAssignedMessageId: 'client-log-1',
      space: { name: SPACE },
    });

    const patched = await http('PATCH', `/v1/${SPACE}/messages/client-log-1?updateMask=text`, {
      text: 'log 2',
    });
    expect(patched.body.lastUpdateTime).toMatch(RFC3339_UTC);
    const updated = await http('PUT', `/v1/${message.name}?updateMask=text`, { text: 'log 3' });
    expect(updated.body).toMatchObject({ name: message.name, text: 'log 3' });
    expectGoogleError(await http('PATCH', `/v1/${message.name}`, { text: 'no mask' }), 400);

    const deleted = await http('DELETE', `/v1/${message.name}`);
    expect(deleted).toMatchObject({ status: 200, body: {} });
  });

  it('a Space has spaceType, spaceThreadingState and singleUserBotDm from the reference’s enums', async () => {
    const spaceTypes = ['SPACE', 'GROUP_CHAT', 'DIRECT_MESSAGE'];
    const threadingStates = ['THREADED_MESSAGES', 'GROUPED_MESSAGES', 'UNTHREADED_MESSAGES'];
    for (const [name, type] of [
      [SPACE, 'SPACE'],
      ['spaces/dm-alice', 'DIRECT_MESSAGE'],
    ] as const) {
      const { status, body } = await http('GET', `/v1/${name}`);
      expect(status).toBe(200);
      expect(body.name).toBe(name);
      expect(spaceTypes).toContain(body.spaceType);
      expect(body.spaceType).toBe(type);
      expect(threadingStates).toContain(body.spaceThreadingState);
      expect(typeof body.singleUserBotDm).toBe('boolean');
      expect(body.createTime).toMatch(RFC3339_UTC);
    }
  });

  it('a message of exactly 32,000 bytes is accepted and one byte more is INVALID_ARGUMENT [create]', async () => {
    expect((await http('POST', `/v1/${SPACE}/messages`, { text: 'a'.repeat(32_000) })).status).toBe(200);
    expectGoogleError(await http('POST', `/v1/${SPACE}/messages`, { text: 'a'.repeat(32_001) }), 400);
  });
});
