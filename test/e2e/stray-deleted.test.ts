/**
 * Issue 9 item 7 · a deleted stray message is replaced ("Stray events:
 * top-level notes and warnings are coalesced into one edited message per
 * space per minute"): a person deletes the stray message through the
 * emulator's inspection API (`POST /_emulator/delete`, docs/emulators.md);
 * the next stray's edit gets the platform's own not-found (Google Chat 404,
 * Slack `message_not_found`, Discord 10008) through its official client, and
 * the stray log posts ONE fresh message carrying every stray of the minute,
 * then edits that one. On Slack also: a restart within the minute keeps
 * editing the same stray message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatedMessage, RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { startSlackE2E } from './slack/harness.js';

interface Platform {
  send(event: Record<string, unknown>): void;
  advance(ms: number): Promise<void>;
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  messages(): EmulatedMessage[];
  personDeletes(messageId: string): Promise<void>;
  stop(): Promise<void>;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const stray = (e: Platform, text: string) => e.send({ type: 'note', turnId: 'T1 ', text });
// Slack refuses with HTTP 200 and `{ok: false, error}`: the emulator records the error in details.
const landed = (calls: RecordedCall[]) =>
  calls.filter((c) => c.status < 300 && c.details?.error === undefined);
const shownIn = (e: Platform, messageId: string | null | undefined) =>
  e.messages().find((m) => m.id === messageId && !m.deleted)?.text ?? '';

async function deletedAndReplaced(e: Platform, notFound: (call: RecordedCall) => boolean): Promise<void> {
  stops.push(() => e.stop());
  stray(e, 'stray one');
  await e.advance(2_000);
  stray(e, 'stray two');
  await e.advance(2_000);
  expect(landed(e.creates())).toHaveLength(1);
  const first = landed(e.creates())[0]?.messageId;
  expect(shownIn(e, first)).toContain('stray two');

  await e.personDeletes(first ?? '');
  stray(e, 'stray three');
  await e.advance(3_000);

  // The edit met the platform's not-found; one fresh message, notifying once, carries the minute's strays.
  expect(e.updates().some((c) => c.messageId === first && notFound(c))).toBe(true);
  const creates = landed(e.creates());
  expect(creates).toHaveLength(2);
  expect(creates[1]?.notifies).toBe(true);
  const fresh = creates[1]?.messageId;
  for (const text of ['stray one', 'stray two', 'stray three']) expect(shownIn(e, fresh)).toContain(text);

  stray(e, 'stray four');
  await e.advance(3_000);
  expect(landed(e.creates())).toHaveLength(2);
  expect(landed(e.updates()).at(-1)?.messageId).toBe(fresh);
  expect(shownIn(e, fresh)).toContain('stray four');
}

describe('a deleted stray message is replaced', () => {
  it('Google Chat (404 NOT_FOUND)', async () => {
    await deletedAndReplaced(await startGchatE2E(), (c) => c.status === 404);
  });

  it('Slack (message_not_found)', async () => {
    await deletedAndReplaced(await startSlackE2E(), (c) => c.details?.error === 'message_not_found');
  });

  it('Discord (10008 Unknown Message)', async () => {
    await deletedAndReplaced(await startDiscordE2E(), (c) => c.status === 404);
  });
});

describe('the stray message across a restart', () => {
  it('Slack: a runtime restarted within the minute edits the same stray message', async () => {
    const e = await startSlackE2E();
    stops.push(() => e.stop());
    stray(e, 'before the restart');
    await e.advance(2_000);
    const message = landed(e.creates())[0]?.messageId;
    await e.stopRuntime();
    await e.restart();
    stray(e, 'after the restart');
    await e.advance(3_000);
    expect(landed(e.creates())).toHaveLength(1);
    expect(landed(e.updates()).at(-1)?.messageId).toBe(message);
    expect(shownIn(e, message)).toContain('before the restart');
    expect(shownIn(e, message)).toContain('after the restart');
  });
});
