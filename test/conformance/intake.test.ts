/**
 * Issue 27.3 (intake): what the emulators deliver to the app, checked against
 * the types the official SDKs give those payloads — Slack's Events API
 * envelope and message event (@slack/bolt's `EnvelopedEvent`, @slack/types'
 * `GenericMessageEvent`) and its `block_actions` payload (@slack/bolt's
 * `BlockAction`, `ButtonAction`); Google Chat's MESSAGE and CARD_CLICKED
 * events (googleapis's `Schema$DeprecatedEvent`, the event an HTTP Chat app
 * receives). Discord's gateway payloads have no schema in the spec package:
 * not covered.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { startSlackEmulator } from '../../src/emulators/slack/index.js';
import { emulatorCall } from '../emulators/inspection.js';
import { type AppCapture, startAppCapture } from './kit/app-capture.js';
import { createChecker, type SchemaChecker } from './kit/check.js';
import { chatClientTypes } from './kit/gchat-spec.js';
import { SLACK_BOLT_FILES, SLACK_TYPES_FILES } from './kit/sources.js';
import { createConverter, type JsonSchema, readDeclarations } from './kit/ts-schema.js';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const SECRET = 'intake-signing-secret';

function schemasFrom(
  files: string[],
  names: string[],
): { checker: SchemaChecker; refs: Record<string, JsonSchema> } {
  const converter = createConverter(files.map((f) => readDeclarations(join(NODE_MODULES, f))));
  const refs = Object.fromEntries(names.map((n) => [n, converter.refTo(n)]));
  return { checker: createChecker(`intake-${names.join('-')}`, converter.defs), refs };
}

describe('Slack: what the emulator delivers to the app', () => {
  let app: AppCapture;
  let emulator: Awaited<ReturnType<typeof startSlackEmulator>>;
  beforeAll(async () => {
    emulator = await startSlackEmulator();
    app = await startAppCapture();
    await emulatorCall(emulator.url, 'app', { url: app.url, secret: SECRET });
  });
  afterAll(async () => {
    await emulator.close();
    await app.close();
  });
  const { checker, refs } = schemasFrom(
    [...SLACK_BOLT_FILES, ...SLACK_TYPES_FILES],
    ['EnvelopedEvent', 'GenericMessageEvent', 'BlockAction', 'ButtonAction'],
  );

  it('a message event: an event_callback envelope around a GenericMessageEvent, signed', async () => {
    await emulatorCall(emulator.url, 'inbound', { space: 'C0INTAKE', text: 'hello', user: 'U0PERSON' });
    const delivery = app.deliveries.at(-1)!;
    const body = JSON.parse(delivery.body);
    expect(checker.check(refs.EnvelopedEvent!, body)).toEqual([]);
    expect(checker.check(refs.GenericMessageEvent!, body.event)).toEqual([]);
    expect(delivery.headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(delivery.headers['x-slack-request-timestamp']).toMatch(/^\d+$/);
  });

  it('a press: a form-encoded block_actions payload, a BlockAction whose action is a ButtonAction', async () => {
    const res = await fetch(`${emulator.url}/api/chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer xoxb-intake' },
      body: JSON.stringify({
        channel: 'C0INTAKE',
        text: 'Approve?',
        blocks: [
          {
            type: 'actions',
            block_id: 'b1',
            elements: [
              {
                type: 'button',
                action_id: 'approve',
                value: 'p1',
                text: { type: 'plain_text', text: 'Approve' },
              },
            ],
          },
        ],
      }),
    });
    const posted = (await res.json()) as { ok: boolean; ts: string; channel: string };
    expect(posted.ok).toBe(true);
    const before = app.deliveries.length;
    await emulatorCall(emulator.url, 'click', { messageId: posted.ts, action: 'approve', user: 'U0PERSON' });
    const delivery = app.deliveries[before]!;
    expect(delivery.headers['content-type']).toContain('application/x-www-form-urlencoded');
    const payload = JSON.parse(new URLSearchParams(delivery.body).get('payload') ?? 'null');
    expect(checker.check(refs.BlockAction!, payload)).toEqual([]);
    expect(checker.check(refs.ButtonAction!, payload.actions[0])).toEqual([]);
  });

  it('the check has teeth: a payload without user.username, an event with a numeric ts, are refused', () => {
    expect(
      checker
        .check(refs.BlockAction!, { type: 'block_actions', actions: [], team: null, user: { id: 'U' } })
        .join(),
    ).toContain("must have required property 'username'");
    expect(
      checker.check(refs.GenericMessageEvent!, { type: 'message', channel: 'C', user: 'U', ts: 1 }).join(),
    ).toContain('/ts: must be string');
  });
});

describe('Google Chat: what the emulator delivers to the app', () => {
  let app: AppCapture;
  let emulator: Awaited<ReturnType<typeof startGchatEmulator>>;
  beforeAll(async () => {
    emulator = await startGchatEmulator();
    app = await startAppCapture('{}');
    await emulatorCall(emulator.url, 'app', { url: app.url, secret: '123456789' });
  });
  afterAll(async () => {
    await emulator.close();
    await app.close();
  });
  const converter = createConverter([readDeclarations(chatClientTypes)], undefined, { closed: true });
  const event = converter.refTo('Schema$DeprecatedEvent');
  // Closed: a field the Chat API does not define would be one the emulator made up.
  const checker = createChecker('intake-gchat', converter.defs);

  it('a MESSAGE event is a Schema$DeprecatedEvent, every field one the API defines, with a bearer JWT', async () => {
    await emulatorCall(emulator.url, 'inbound', { space: 'spaces/AAAA', text: 'hello' });
    const delivery = app.deliveries.at(-1)!;
    const body = JSON.parse(delivery.body);
    expect(body.type).toBe('MESSAGE');
    expect(checker.check(event, body)).toEqual([]);
    expect(delivery.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('a CARD_CLICKED event is one too', async () => {
    const res = await fetch(`${emulator.url}/v1/spaces/AAAA/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        cardsV2: [
          {
            cardId: 'c1',
            card: {
              sections: [
                {
                  widgets: [
                    {
                      buttonList: {
                        buttons: [
                          {
                            text: 'Approve',
                            onClick: {
                              action: { function: 'decide', parameters: [{ key: 'd', value: 'ok' }] },
                            },
                          },
                        ],
                      },
                    },
                  ],
                },
              ],
            },
          },
        ],
      }),
    });
    const posted = (await res.json()) as { name: string };
    expect(res.status).toBe(200);
    const before = app.deliveries.length;
    await emulatorCall(emulator.url, 'click', { messageId: posted.name, action: 'Approve' });
    const body = JSON.parse(app.deliveries[before]!.body);
    expect(body.type).toBe('CARD_CLICKED');
    expect(checker.check(event, body)).toEqual([]);
  });

  it('the check has teeth: a field the API does not define, or a user without a string name, is refused', () => {
    expect(checker.check(event, { type: 'MESSAGE', made_up: 1 })).toEqual([
      '(root): must NOT have unevaluated properties',
    ]);
    expect(checker.check(event, { type: 'MESSAGE', user: { name: 7 } }).join()).toContain(
      '/user/name: must be string',
    );
  });
});
