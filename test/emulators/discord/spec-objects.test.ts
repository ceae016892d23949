// Issue 27.3: the Discord emulator's message objects and 429s as Discord's spec (discord-api-spec's
// MessageResponse, UserResponse, *ComponentResponse) and rate-limit docs give them: components with an
// `id` at every nesting level, containers with `spoiler`, `author` with `flags` and `primary_guild`,
// Get Current User with mfa_enabled and locale, and an injected 429 with the bucket headers
// @discordjs/rest reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { componentsJson } from '../../../src/emulators/discord/component-objects.js';
import { type Harness, startHarness } from './harness.js';

const CHANNEL = '1700000000000000001';
const IS_COMPONENTS_V2 = 1 << 15;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const card = {
  flags: IS_COMPONENTS_V2,
  components: [
    {
      type: 17,
      components: [
        { type: 10, content: 'Approval requested' },
        { type: 14 },
        {
          type: 1,
          components: [
            { type: 2, style: 3, label: 'Approve', custom_id: 'a' },
            { type: 2, style: 4, label: 'Reject', custom_id: 'r', id: 2 },
          ],
        },
      ],
    },
  ],
};

describe('discord emulator: message objects as the spec has them', () => {
  it('numbers every component depth-first from 1, keeping the ids sent, and fills container and separator defaults', async () => {
    const posted = await h.raw('POST', `/api/v10/channels/${CHANNEL}/messages`, card);
    expect(posted.status).toBe(200);
    const [container] = posted.body.components;
    expect(container).toMatchObject({ type: 17, id: 1, spoiler: false, accent_color: null });
    const [text, separator, row] = container.components;
    expect(text).toMatchObject({ type: 10, id: 3 });
    expect(separator).toMatchObject({ type: 14, id: 4, spacing: 1, divider: true });
    expect(row).toMatchObject({ type: 1, id: 5 });
    expect(row.components.map((b: { id: number }) => b.id)).toEqual([6, 2]);
  });

  it('an edit answers the same shape, and the author has flags and primary_guild', async () => {
    const posted = await h.raw('POST', `/api/v10/channels/${CHANNEL}/messages`, { content: 'log' });
    expect(posted.body.author).toMatchObject({ flags: 0, primary_guild: null, public_flags: 0 });
    const edited = await h.raw('PATCH', `/api/v10/channels/${CHANNEL}/messages/${posted.body.id}`, {
      ...card,
      content: '',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.components[0]).toMatchObject({ id: 1, spoiler: false });
    expect(edited.body.author).toMatchObject({ flags: 0, primary_guild: null });
  });

  it('an accessory is numbered after what its section holds; a stored copy is not changed', () => {
    const stored = [
      { type: 9, components: [{ type: 10, content: 'x' }], accessory: { type: 2, style: 1, custom_id: 'b' } },
    ];
    expect(componentsJson(stored)).toEqual([
      {
        type: 9,
        id: 1,
        components: [{ type: 10, id: 2, content: 'x' }],
        accessory: { type: 2, id: 3, style: 1, custom_id: 'b' },
      },
    ]);
    expect(stored[0]).not.toHaveProperty('id');
  });
});

describe('discord emulator: the current user', () => {
  it('GET /users/@me has the private fields the spec requires (mfa_enabled, locale) beside flags and primary_guild', async () => {
    const me = await h.raw('GET', '/api/v10/users/@me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      bot: true,
      flags: 0,
      primary_guild: null,
      mfa_enabled: false,
      locale: 'en-US',
    });
  });
});

describe('discord emulator: an injected 429 as Discord sends one', () => {
  it("carries the route bucket's X-RateLimit-Limit, -Remaining 0, -Reset, -Reset-After and -Bucket beside Retry-After", async () => {
    await h.raw('POST', '/_emulator/faults', {
      rules: [{ op: 'update', status: 429, retryAfterS: 2, times: 1 }],
    });
    const posted = await h.raw('POST', `/api/v10/channels/${CHANNEL}/messages`, { content: 'log' });
    const refused = await h.raw('PATCH', `/api/v10/channels/${CHANNEL}/messages/${posted.body.id}`, {
      content: 'x',
    });
    expect(refused.status).toBe(429);
    const header = (name: string) => refused.headers.get(name);
    expect(header('retry-after')).toBe('2');
    expect(header('x-ratelimit-scope')).toBe('user');
    expect(header('x-ratelimit-limit')).toBe('5');
    expect(header('x-ratelimit-remaining')).toBe('0');
    expect(header('x-ratelimit-reset-after')).toBe('2');
    expect(Number(header('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(header('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
  });
});
