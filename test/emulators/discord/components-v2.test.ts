// spec: issue 12 item 8 — emulator fidelity: Components V2 validation (IS_COMPONENTS_V2 with content/embeds,
// > 40 components, > 4,000 chars of text → 50035), the flags an edit can and can't change, the typing
// endpoint, 30046 for edits of messages older than an hour (on the emulator's clock), and a messages view
// that shows what a person sees (Text Display text, buttons as [{action, label}]). Through @discordjs/core.
import { DiscordAPIError } from '@discordjs/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EDITABLE_AGE_MS } from '../../../src/emulators/discord/index.js';
import { type Harness, recordedCalls, startHarness } from './harness.js';

const CHANNEL = '1700000000000000001';
const V2 = 1 << 15;
const SUPPRESS_NOTIFICATIONS = 1 << 12;

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ limits: [] });
});
afterEach(async () => {
  await h.close();
});

async function discordErrorOf(call: Promise<unknown>) {
  const error = await call.then(
    () => {
      throw new Error('expected the call to be rejected');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DiscordAPIError);
  const { status, code, rawError } = error as DiscordAPIError;
  return { status, code, errors: (rawError as { errors?: unknown }).errors };
}

const text = (content: string) => ({ type: 10, content });
const container = (components: unknown[], accent = 0x5865f2) => ({
  type: 17,
  accent_color: accent,
  components,
});
const buttons = (...ids: string[]) => ({
  type: 1,
  components: ids.map((id) => ({ type: 2, style: 1, custom_id: id, label: id.toUpperCase() })),
});

// biome-ignore lint/suspicious/noExplicitAny: component payloads are built ad hoc for the emulator's checks.
const v2Message = (components: any[]) => ({ flags: V2, components, allowed_mentions: { parse: [] } }) as any;

async function view() {
  return (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
}

describe('Components V2 messages', () => {
  it('creates one: no content, components echoed, and the view shows its text and buttons', async () => {
    const { api } = h.client();
    const message = await api.channels.createMessage(
      CHANNEL,
      v2Message([
        container([
          text('**Running** · 3s'),
          { type: 14, divider: true },
          text('line 1'),
          buttons('approve', 'reject'),
        ]),
      ]),
    );
    expect(message).toMatchObject({ content: '', flags: V2 });
    expect(message.components).toHaveLength(1);
    expect(await view()).toEqual([
      expect.objectContaining({
        // No text field of its own: a person reads its Text Displays and sees its buttons.
        text: '',
        card: { title: null, text: '**Running** · 3s\nline 1' },
        buttons: [
          { action: 'approve', label: 'APPROVE' },
          { action: 'reject', label: 'REJECT' },
        ],
      }),
    ]);
    expect((await recordedCalls(h)).at(-1)).toMatchObject({ op: 'create', text: '**Running** · 3s\nline 1' });
  });

  it('refuses content or embeds beside IS_COMPONENTS_V2 with 50035', async () => {
    const { api } = h.client();
    const refused = await discordErrorOf(
      api.channels.createMessage(CHANNEL, { ...v2Message([text('x')]), content: 'also content' }),
    );
    expect(refused).toMatchObject({
      status: 400,
      code: 50035,
      errors: { content: { _errors: [{ code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2' }] } },
    });
  });

  it('refuses more than 40 components (nested ones count) and more than 4,000 characters of text', async () => {
    const { api } = h.client();
    // 1 container + 40 text displays = 41.
    const tooMany = await discordErrorOf(
      api.channels.createMessage(
        CHANNEL,
        v2Message([container(Array.from({ length: 40 }, (_, i) => text(`t${i}`)))]),
      ),
    );
    expect(tooMany).toMatchObject({
      code: 50035,
      errors: { components: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });
    // 39 components is fine.
    await api.channels.createMessage(
      CHANNEL,
      v2Message([container(Array.from({ length: 38 }, (_, i) => text(`t${i}`)))]),
    );

    const tooLong = await discordErrorOf(
      api.channels.createMessage(
        CHANNEL,
        v2Message([container([text('a'.repeat(2000)), text('b'.repeat(2001))])]),
      ),
    );
    expect(tooLong).toMatchObject({
      code: 50035,
      errors: { components: { _errors: [{ code: 'MAX_TOTAL_TEXT_LENGTH_EXCEEDED' }] } },
    });
    await api.channels.createMessage(
      CHANNEL,
      v2Message([container([text('a'.repeat(2000)), text('b'.repeat(2000))])]),
    );
  });

  it('refuses V2 components without the flag, repeated custom ids and more than 5 buttons in a row', async () => {
    const { api } = h.client();
    const noFlag = await discordErrorOf(
      // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong payload.
      api.channels.createMessage(CHANNEL, { components: [text('hi')] } as any),
    );
    expect(noFlag).toMatchObject({
      code: 50035,
      errors: { components: { 0: { type: { _errors: [{ code: 'UNION_TYPE_CHOICES' }] } } } },
    });
    const duplicate = await discordErrorOf(
      api.channels.createMessage(CHANNEL, v2Message([buttons('a', 'a')])),
    );
    expect(JSON.stringify(duplicate.errors)).toContain('COMPONENT_CUSTOM_ID_DUPLICATED');
    const wide = await discordErrorOf(
      api.channels.createMessage(CHANNEL, v2Message([buttons('a', 'b', 'c', 'd', 'e', 'f')])),
    );
    expect(JSON.stringify(wide.errors)).toContain('BASE_TYPE_BAD_LENGTH');
    // Legacy messages may carry Action Rows of buttons beside content.
    // biome-ignore lint/suspicious/noExplicitAny: a legacy component payload.
    await api.channels.createMessage(CHANNEL, { content: 'pick', components: [buttons('x')] } as any);
  });
});

describe('the flags an edit can change', () => {
  it('IS_COMPONENTS_V2 can be set by an edit that clears the content, never unset; content on a V2 message is refused', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, {
      content: 'plain',
      allowed_mentions: { parse: [] },
    });
    // Upgrading without clearing the content is refused.
    expect(
      (await discordErrorOf(api.channels.editMessage(CHANNEL, posted.id, v2Message([text('v2')])))).code,
    ).toBe(50035);
    const upgraded = await api.channels.editMessage(CHANNEL, posted.id, {
      ...v2Message([text('now v2')]),
      content: null,
    });
    expect(upgraded).toMatchObject({ flags: V2, content: '' });

    // Asking to drop the flag keeps it (recorded as ignored).
    const kept = await api.channels.editMessage(CHANNEL, posted.id, {
      flags: 0,
      components: [text('still v2')],
      allowed_mentions: { parse: [] },
      // biome-ignore lint/suspicious/noExplicitAny: a raw components payload.
    } as any);
    expect(kept.flags).toBe(V2);
    expect((await recordedCalls(h)).at(-1)).toMatchObject({ details: { flagsIgnored: V2 } });

    expect(
      (await discordErrorOf(api.channels.editMessage(CHANNEL, posted.id, { content: 'back to text' }))).code,
    ).toBe(50035);
    expect((await view())[0]).toMatchObject({ text: '', card: { text: 'still v2' }, edits: 2 });
  });

  it('SUPPRESS_NOTIFICATIONS cannot be set by an edit', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, {
      content: 'x',
      allowed_mentions: { parse: [] },
    });
    const edited = await api.channels.editMessage(CHANNEL, posted.id, {
      content: 'y',
      flags: SUPPRESS_NOTIFICATIONS,
    });
    expect(edited.flags).toBe(0);
  });
});

describe('30046: edits to messages older than an hour', () => {
  it('are refused on the emulator clock past one hour, allowed before', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, {
      content: 'log',
      allowed_mentions: { parse: [] },
    });
    h.clock.increment(EDITABLE_AGE_MS);
    await api.channels.editMessage(CHANNEL, posted.id, {
      content: 'at one hour',
      allowed_mentions: { parse: [] },
    });
    h.clock.increment(1);
    const refused = await discordErrorOf(
      api.channels.editMessage(CHANNEL, posted.id, { content: 'too late', allowed_mentions: { parse: [] } }),
    );
    expect(refused).toMatchObject({ status: 400, code: 30046 });
    expect((await view())[0]).toMatchObject({ text: 'at one hour' });
  });
});

describe('typing', () => {
  it('POST /channels/{id}/typing answers 204 and is recorded; an unknown channel in strict mode is 10003', async () => {
    const { api } = h.client();
    await expect(api.channels.showTyping(CHANNEL)).resolves.toBeUndefined();
    expect((await recordedCalls(h)).at(-1)).toMatchObject({
      method: 'POST',
      path: `/api/v10/channels/${CHANNEL}/typing`,
      op: 'other',
      status: 204,
      space: CHANNEL,
      notifies: false,
      details: { typing: true },
    });
    const strict = await startHarness({ strict: true });
    try {
      expect((await discordErrorOf(strict.client().api.channels.showTyping(CHANNEL))).code).toBe(10003);
    } finally {
      await strict.close();
    }
  });
});
