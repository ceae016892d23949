// Issue 27.2: the spec kit itself — the TypeScript-declarations → JSON Schema converter (the
// googleapis and @slack/web-api sources ship types, not JSON) and the exchange checks — finds
// what it should: a missing required field, a wrong type, an undocumented route, a 429 short of
// its headers, a request field Google does not know, an error out of Google's shape; and an
// erratum is reported, not failed.
import { beforeAll, describe, expect, it } from 'vitest';
import { createChecker, sortFindings } from './kit/check.js';
import { checkDiscordExchange, DISCORD_ERRATA } from './kit/discord-check.js';
import { loadDiscordSpec, type OperationTable } from './kit/discord-spec.js';
import { checkGchatExchange } from './kit/gchat-check.js';
import { loadGchatSpec } from './kit/gchat-spec.js';
import type { Exchange } from './kit/recording-proxy.js';
import { createSlackChecker, SLACK_ERRATA } from './kit/slack-check.js';
import { loadSlackSpec } from './kit/slack-spec.js';
import { createConverter, parseDeclarations } from './kit/ts-schema.js';

describe('ts-schema: declarations to JSON Schema', () => {
  const decls = parseDeclarations(
    'fixture.d.ts',
    `declare namespace api {
       interface Base { name?: string | null }
       interface Node extends Base { kind: 'a' | 'b'; size: number; children?: Node[]; labels?: {[key: string]: string} | null; flag?: boolean }
       type Pair = [string, number];
       type Named = Record<string, Node>;
     }`,
  );
  const converter = createConverter([decls]);
  const node = converter.refTo('Node');
  const checker = () => createChecker('fixture', converter.defs);

  it('keeps required and optional fields, nullability, literals, arrays, maps, recursion and extends', () => {
    const c = checker();
    expect(c.check(node, { kind: 'a', size: 1, children: [{ kind: 'b', size: 2, name: null }] })).toEqual([]);
    expect(c.check(node, { kind: 'a' })).toEqual(["(root): must have required property 'size'"]);
    expect(c.check(node, { kind: 'c', size: 1 }).join()).toContain('/kind');
    expect(c.check(node, { kind: 'a', size: 1, children: [{ kind: 'a', size: 'x' }] })).toContain(
      '/children/0/size: must be number',
    );
    expect(c.check(node, { kind: 'a', size: 1, labels: { x: 1 } })).toContain('/labels/x: must be string');
    expect(c.check(node, { kind: 'a', size: 1, name: 3 }).join()).toContain('/name');
    expect(c.check(converter.refTo('Named'), { x: { kind: 'a', size: 1 } })).toEqual([]);
    expect(c.check(converter.refTo('Pair'), ['a', 1])).toEqual([]);
  });

  it('throws on a type form it does not know, naming where', () => {
    const odd = parseDeclarations('odd.d.ts', 'type T = keyof Foo;');
    expect(() => createConverter([odd]).refTo('T')).toThrow(/unsupported type TypeOperator at odd.d.ts:1/);
  });
});

describe('the Discord checks', () => {
  let table: OperationTable;
  beforeAll(async () => {
    table = await loadDiscordSpec();
  }, 60_000);
  const exchange = (over: Partial<Exchange>): Exchange => ({
    method: 'GET',
    path: '/api/v10/channels/1',
    query: {},
    requestHeaders: {},
    requestBody: '',
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: '',
    ...over,
  });

  it('finds the operation by template, a literal segment before a parameter', () => {
    expect(table.find('POST', '/channels/1/messages')?.operation.operationId).toBe('create_message');
    expect(table.find('GET', '/users/@me')?.operation.template).toBe('/users/@me');
    expect(table.find('POST', '/nowhere')).toBeUndefined();
  });

  it('reports an undocumented route, a bad path parameter, an unknown query and a response short of required fields', () => {
    const checker = createChecker('discord-spec', table.defs);
    const check = (x: Partial<Exchange>) =>
      checkDiscordExchange(table, checker, exchange(x)).map((f) => f.message);
    expect(check({ path: '/api/v10/nowhere' })).toEqual(['no such operation in the spec']);
    expect(check({ method: 'DELETE', path: '/api/v10/channels/abc/messages/1', status: 204 })).toEqual([
      'channel_id (root): must match pattern "^(0|[1-9][0-9]*)$"',
    ]);
    expect(
      check({ method: 'DELETE', path: '/api/v10/channels/1/messages/1', query: { x: '1' }, status: 204 }),
    ).toEqual(['x: not a parameter']);
    const user = {
      id: '1',
      username: 'u',
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      global_name: null,
    };
    expect(check({ path: '/api/v10/users/@me', responseBody: JSON.stringify(user) })).toEqual([
      "(root): must have required property 'flags'",
      "(root): must have required property 'mfa_enabled'",
      "(root): must have required property 'locale'",
    ]);
  });

  it('a 429 needs its bucket headers; a body without `code` is the cited erratum, reported not failed', () => {
    const checker = createChecker('discord-spec', table.defs);
    const findings = checkDiscordExchange(
      table,
      checker,
      exchange({
        method: 'DELETE',
        path: '/api/v10/channels/1/messages/1',
        status: 429,
        responseHeaders: {
          'content-type': 'application/json',
          'retry-after': '1',
          'x-ratelimit-scope': 'user',
        },
        responseBody: JSON.stringify({
          message: 'You are being rate limited.',
          retry_after: 1,
          global: false,
        }),
      }),
    );
    const sorted = sortFindings(findings, DISCORD_ERRATA);
    expect(sorted.errata.map((e) => e.erratum)).toEqual(['discord-429-code']);
    expect(sorted.violations.map((f) => f.message)).toEqual([
      '429 without x-ratelimit-limit',
      '429 without x-ratelimit-remaining',
      '429 without x-ratelimit-reset',
      '429 without x-ratelimit-reset-after',
      '429 without x-ratelimit-bucket',
    ]);
  });
});

describe('the Google Chat checks', () => {
  const spec = loadGchatSpec();
  const checker = createChecker('gchat-spec', spec.defs);
  const check = (x: Partial<Exchange>) =>
    checkGchatExchange(spec, checker, {
      method: 'POST',
      path: '/v1/spaces/AAAA/messages',
      query: {},
      requestHeaders: {},
      requestBody: '{"text":"hi"}',
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '{"name":"spaces/AAAA/messages/m1","text":"hi"}',
      ...x,
    }).map((f) => `${f.operation} ${f.part} ${f.message}`);

  it('tells a message create from a space patch by the resource name, and knows each method’s query', () => {
    expect(spec.find('PATCH', '/v1/spaces/AAAA/messages/m1')?.id).toBe('spaces.messages.patch');
    expect(spec.find('PATCH', '/v1/spaces/AAAA')?.id).toBe('spaces.patch');
    expect(check({})).toEqual([]);
    expect(check({ query: { threadKey: 't', nope: '1' } })).toEqual([
      'spaces.messages.create query nope: not a parameter',
    ]);
  });

  it('refuses a request or response field Google does not define, and a response of the wrong type', () => {
    expect(check({ requestBody: '{"text":"hi","colour":"red"}' })).toEqual([
      'spaces.messages.create request (root): must NOT have unevaluated properties',
    ]);
    expect(check({ responseBody: '{"name":"spaces/AAAA/messages/m1","shade":"blue"}' })).toEqual([
      'spaces.messages.create response (root): must NOT have unevaluated properties',
    ]);
    expect(check({ responseBody: '{"name":5}' }).join()).toContain('response /name: must be string');
  });

  it("an error needs Google's envelope, its code the HTTP status and the canonical status name", () => {
    expect(
      check({
        status: 404,
        responseBody: '{"error":{"code":404,"message":"No such message","status":"NOT_FOUND"}}',
      }),
    ).toEqual([]);
    expect(
      check({
        status: 429,
        responseBody: '{"error":{"code":400,"message":"x","status":"INVALID_ARGUMENT"}}',
      }),
    ).toEqual([
      'spaces.messages.create response error.code 400 is not the HTTP status',
      "spaces.messages.create response error.status INVALID_ARGUMENT is not Google's for 429 (RESOURCE_EXHAUSTED)",
    ]);
    expect(check({ status: 500, responseBody: '{"message":"x"}' })).toContain(
      "spaces.messages.create response (root): must have required property 'error'",
    );
  });
});

describe('the Slack checks', () => {
  const check = createSlackChecker(loadSlackSpec());
  const run = (x: Partial<Exchange>) =>
    check({
      method: 'POST',
      path: '/api/chat.update',
      query: {},
      requestHeaders: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer xoxb-1' },
      requestBody: 'channel=C1&ts=1.2&text=hi',
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '{"ok":true,"channel":"C1","ts":"1.2","text":"hi"}',
      ...x,
    }).map((f) => `${f.operation} ${f.part} ${f.message}`);

  it("knows the client's methods, the assistant API included, and wants a token", () => {
    expect(run({})).toEqual([]);
    expect(run({ path: '/api/assistant.threads.setStatus', responseBody: '{"ok":true}' })).toEqual([]);
    expect(run({ path: '/api/chat.nope' })).toEqual(['? operation no method chat.nope in @slack/web-api']);
    expect(run({ requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' } })).toEqual([
      'chat.update request no token (Authorization: Bearer, or a token field)',
    ]);
  });

  it('an answer is 200 with a boolean ok, a failure names its error, a 429 says Retry-After, a field has its type', () => {
    expect(run({ responseBody: '{"ok":false}' })).toContain(
      "chat.update response (root): must have required property 'error'",
    );
    expect(run({ status: 404, responseBody: '{"ok":false,"error":"x"}' })).toEqual([
      'chat.update response HTTP 404: Slack answers 200 (or 429)',
    ]);
    expect(run({ status: 429, responseBody: '' })).toEqual([
      'chat.update headers 429 without Retry-After in seconds',
    ]);
    expect(run({ responseBody: '{"ok":true,"ts":12}' })).toContain(
      'chat.update response /ts: must be string',
    );
  });

  it('a context element with a string text is the cited erratum, reported not failed', () => {
    const answer = {
      ok: true,
      message: { blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'x' }] }] },
    };
    const findings = check({
      method: 'POST',
      path: '/api/chat.update',
      query: {},
      requestHeaders: { 'content-type': 'application/json', authorization: 'Bearer xoxb-1' },
      requestBody: '{}',
      status: 200,
      responseHeaders: {},
      responseBody: JSON.stringify(answer),
    });
    const sorted = sortFindings(findings, SLACK_ERRATA);
    expect(sorted.violations).toEqual([]);
    expect(sorted.errata.map((e) => e.erratum)).toEqual(['slack-element-text']);
  });
});
