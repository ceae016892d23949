// spec: the project standard "bad input gets a clear error naming what is wrong, and is kept (dead letters),
// never silently dropped", for the Discord gateway intake (docs/http-api.md "Platform intake"): a button
// press or message turnlog cannot take (a press on a message it does not know, a runtime that throws, a
// verdict that comes after the press was deferred) is stored as a dead letter with source `intake:discord`
// and a reason naming what is wrong, redacted (issue 9); the person still gets an answer within Discord's 3 s.
// Real runtime, real discord.js, the Discord emulator's gateway; the intake built as serve builds it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntakeResult, IntakeSink } from '../../../src/actions/types.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';
import { createDiscordIntake } from '../../../src/platforms/discord/index.js';

import type { PlatformIntake } from '../../../src/registry/descriptor.js';
import { createIntakes, intakeDeadLetter } from '../../../src/serve/surfaces.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { DeadLetterRecord } from '../../../src/store/store.js';
import { emulatorInspection } from '../../surfaces/gchat/harness.js';
import { CHANNEL, type DiscordE2E, startDiscordE2E, TOKEN } from './harness.js';

const PERSON = '1950000000000000201';
/** A credential that ended up in a button's custom id: it must not reach the store. */
const LEAKED = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

let e: DiscordE2E | undefined;
let intake: PlatformIntake | undefined;
afterEach(async () => {
  await intake?.stop?.();
  intake = undefined;
  await e?.stop();
  e = undefined;
});

const logger = { info: () => {}, warn: () => {} };

async function setUp(opts: { sink?: (runtime: IntakeSink) => IntakeSink; answerWithinMs?: number } = {}) {
  const store = createMemoryStore();
  e = await startDiscordE2E({ emulator: { gateway: { tokens: [TOKEN] } }, store });
  const h = e;
  const sink = opts.sink ? opts.sink(h.runtime) : h.runtime;
  const keep = (record: DeadLetterRecord) => store.deadLetter(record);
  intake =
    opts.answerWithinMs === undefined
      ? createIntakes(
          { discord: { token: TOKEN, apiUrl: h.emulator.url, gateway: true } } as never,
          builtinPlatforms,
          { sink, now: () => h.clock.now(), logger },
          keep,
        ).discord
      : createDiscordIntake({
          token: TOKEN,
          apiUrl: h.emulator.url,
          sink,
          logger,
          answerWithinMs: opts.answerWithinMs,
          deadLetter: intakeDeadLetter('discord', keep, { now: () => h.clock.now(), logger }),
        });
  await intake?.start?.();
  const inspect = emulatorInspection(h.emulator.url);
  /** A message with one button, posted by the bot but not through turnlog: no card turnlog knows. */
  const strayButton = async (customId: string) => {
    const res = await fetch(`${h.emulator.url}/api/v10/channels/${CHANNEL}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Go?',
        components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: customId }] }],
      }),
    });
    return ((await res.json()) as { id: string }).id;
  };
  return {
    h,
    strayButton,
    click: (body: { messageId: string; action: string }) =>
      inspect('click', { user: PERSON, ...body }) as Promise<{ delivered: boolean; reply?: string }>,
    personSays: (text: string) => inspect('inbound', { user: PERSON, space: CHANNEL, text }),
    deadLetters: async () => (await store.deadLetters()).filter((d) => d.source === 'intake:discord'),
  };
}

describe('Discord gateway intake: what it cannot take is kept as a dead letter', () => {
  it('a press on a message turnlog does not know: the person is told, the press is kept, its secret redacted', async () => {
    const { strayButton, click, deadLetters } = await setUp();
    const messageId = await strayButton(`deploy:${LEAKED}`);
    const answer = await click({ messageId, action: `deploy:${LEAKED}` });
    expect(answer.delivered).toBe(true);
    expect(answer.reply).toMatch(/turnlog does not know message/);
    const kept = await deadLetters();
    expect(kept).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/a click turnlog did not take: turnlog does not know message/),
      }),
    ]);
    expect(kept[0]?.payload).toContain(messageId);
    expect(kept[0]?.payload).toContain('[REDACTED');
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
  });

  it('a runtime that throws on a press or a message: the person is told to try again, each is kept with the error', async () => {
    const { strayButton, click, personSays, deadLetters } = await setUp({
      sink: () => ({ receive: () => Promise.reject(new Error('the store is closed')) }),
    });
    const messageId = await strayButton('approve');
    const answer = await click({ messageId, action: 'approve' });
    expect(answer.reply).toMatch(/could not record this press; try again/);
    await personSays('hello');
    await vi.waitFor(async () =>
      expect((await deadLetters()).map((d) => d.reason)).toEqual([
        expect.stringMatching(/the runtime could not take a click: the store is closed/),
        expect.stringMatching(/the runtime could not take a message: the store is closed/),
      ]),
    );
  });

  it('a verdict that comes after the press was deferred: an unknown one is kept', async () => {
    let release: (result: IntakeResult) => void = () => {};
    const { strayButton, click, deadLetters } = await setUp({
      answerWithinMs: 50,
      sink: () => ({
        receive: () =>
          new Promise<IntakeResult>((resolve) => {
            release = resolve;
          }),
      }),
    });
    const messageId = await strayButton('approve');
    expect(await click({ messageId, action: 'approve' })).toMatchObject({ delivered: true });
    release({ status: 'unknown', text: 'no such card' });
    await vi.waitFor(async () =>
      expect(await deadLetters()).toEqual([
        expect.objectContaining({
          reason: expect.stringMatching(/a click turnlog did not take: no such card/),
        }),
      ]),
    );
  });
});
