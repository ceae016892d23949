// spec: issue 11 item 5 — Slack's HTTP 200 {ok:false, error} codes and 429 in the port's taxonomy, the code kept
// for the turn to act on: message_not_found → not-found; ratelimited → rate-limited; channel_not_found,
// not_in_channel, is_archived and the token errors → forbidden; msg_too_long, invalid_blocks → invalid
// (and marked as refused content); 5xx / Slack's own failures → transient.
import { WebAPIPlatformError, WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import {
  kindOfSlackCode,
  REFUSED_CONTENT_CODES,
  toSurfaceError,
} from '../../../src/platforms/slack/errors.js';
import { silentLogger } from '../../emulators/slack/slack-test-kit.js';
import { rejectionOf } from './harness.js';

describe('kindOfSlackCode', () => {
  it.each([
    ['message_not_found', 'not-found'],
    ['thread_not_found', 'not-found'],
    ['ratelimited', 'rate-limited'],
    ['channel_not_found', 'forbidden'],
    ['not_in_channel', 'forbidden'],
    ['is_archived', 'forbidden'],
    ['invalid_auth', 'forbidden'],
    ['not_authed', 'forbidden'],
    ['token_revoked', 'forbidden'],
    ['missing_scope', 'forbidden'],
    ['feature_not_enabled', 'forbidden'],
    ['cant_update_message', 'forbidden'],
    ['msg_too_long', 'invalid'],
    ['invalid_blocks', 'invalid'],
    ['invalid_arguments', 'invalid'],
    ['internal_error', 'transient'],
    ['fatal_error', 'transient'],
    ['service_unavailable', 'transient'],
    ['something_new', 'invalid'],
  ])('%s → %s', (code, kind) => {
    expect(kindOfSlackCode(code)).toBe(kind);
  });

  it('marks msg_too_long and invalid_blocks as content Slack refused (render smaller, then text only)', () => {
    expect([...REFUSED_CONTENT_CODES].sort()).toEqual([
      'invalid_blocks',
      'invalid_blocks_format',
      'msg_blocks_too_long',
      'msg_too_long',
    ]);
  });
});

let emulator: EmulatorServer | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('toSurfaceError on the client’s own errors', () => {
  it('keeps Slack’s code and its explanation of a refused message', async () => {
    emulator = await startSlackEmulator();
    const client = new WebClient('xoxb-errors', {
      slackApiUrl: `${emulator.url}/api/`,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      logger: silentLogger,
    });
    const tooLong = await rejectionOf(
      client.chat.postMessage({ channel: 'C0ERRORS01', text: 'x'.repeat(40_001) }),
    );
    const badBlocks = await rejectionOf(
      client.chat.postMessage({ channel: 'C0ERRORS01', text: 'x', blocks: [{ type: 'section' } as never] }),
    );
    expect(tooLong).toBeInstanceOf(WebAPIPlatformError);

    const mappedTooLong = toSurfaceError(tooLong, 'chat.postMessage in C0ERRORS01');
    const mappedBlocks = toSurfaceError(badBlocks, 'chat.postMessage in C0ERRORS01');
    expect(mappedTooLong).toMatchObject({ kind: 'invalid', details: { code: 'msg_too_long', status: 200 } });
    expect(mappedBlocks).toMatchObject({ kind: 'invalid', details: { code: 'invalid_blocks' } });
    expect(mappedBlocks.message).toMatch(
      /^chat\.postMessage in C0ERRORS01: Slack answered invalid_blocks \(\[ERROR\] /,
    );
    expect(mappedBlocks.message).toContain('json-pointer:/blocks/0');
  });

  it('reads anything that is not a Slack error as no answer (transient)', () => {
    const mapped = toSurfaceError(new TypeError('fetch failed'), 'chat.update');
    expect(mapped).toMatchObject({ kind: 'transient' });
    expect(mapped.message).toBe('chat.update: no answer from Slack (fetch failed)');
  });
});
