/**
 * A fourth platform's emulator, defined in test code only: a Matrix-flavoured
 * client-server API on the emulator core (faults, limits, inspection API).
 * - `PUT /_matrix/client/v3/rooms/{room}/send/m.room.message/{txnId}` sends
 *   (idempotent per room by `txnId`, as Matrix does); `m.relates_to:
 *   {rel_type: 'm.thread', event_id}` threads it; `{rel_type: 'm.replace',
 *   event_id}` with `m.new_content` edits an earlier message; `msgtype:
 *   'm.notice'` does not notify (bots' notices are muted by default).
 * - errors: `{errcode, error, retry_after_ms?}` with the HTTP status.
 * https://spec.matrix.org/v1.11/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid
 */

import {
  createEmulatorServer,
  detectBroadMentions,
  type EmulatorServer,
  type PlatformHandler,
} from '../../../src/emulators/core/index.js';
import type { Platform } from '../../../src/emulators/types.js';

const SEND = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/;

interface SendBody {
  msgtype?: string;
  body?: string;
  'm.new_content'?: { body?: string };
  'm.relates_to'?: { rel_type?: string; event_id?: string };
}

const ERRCODES: Record<number, string> = {
  400: 'M_BAD_JSON',
  401: 'M_UNKNOWN_TOKEN',
  403: 'M_FORBIDDEN',
  404: 'M_NOT_FOUND',
  429: 'M_LIMIT_EXCEEDED',
};

const matrixHandler: PlatformHandler = {
  match(req, ctx) {
    const send = SEND.exec(req.path);
    if (req.method !== 'PUT' || send === null) return null;
    const room = decodeURIComponent(send[1]!);
    const txnId = decodeURIComponent(send[2]!);
    const body = (req.body ?? {}) as SendBody;
    const relation = body['m.relates_to'];
    if (relation?.rel_type === 'm.replace') {
      const text = body['m.new_content']?.body ?? '';
      return {
        op: 'update',
        space: room,
        messageId: relation.event_id ?? null,
        text,
        handle: () => {
          const message = ctx.store.get(relation.event_id ?? '');
          if (!message || message.deleted || message.space !== room) {
            return { status: 404, body: { errcode: 'M_NOT_FOUND', error: 'Event not found' } };
          }
          ctx.store.edit(message.id, text);
          return { status: 200, body: { event_id: `$edit-${txnId}` }, record: { thread: message.thread } };
        },
      };
    }
    const text = body.body ?? '';
    const thread = relation?.rel_type === 'm.thread' ? (relation.event_id ?? null) : null;
    return {
      op: 'create',
      space: room,
      text,
      handle: () => {
        const earlier = ctx.store.findByIdempotencyKey(room, txnId);
        if (earlier) {
          return {
            status: 200,
            body: { event_id: earlier.id },
            record: { messageId: earlier.id, thread: earlier.thread, details: { idempotentReplay: true } },
          };
        }
        const id = `$e${ctx.store.nextOrdinal()}`;
        ctx.store.create({
          id,
          space: room,
          thread,
          text,
          author: { kind: 'app', id: 'bot' },
          idempotencyKey: txnId,
        });
        return {
          status: 200,
          body: { event_id: id },
          record: {
            messageId: id,
            thread,
            notifies: body.msgtype !== 'm.notice',
            mentions: detectBroadMentions(text).filter((m) => m === '@room'),
          },
        };
      },
    };
  },
  inbound(input, ctx) {
    const id = `$e${ctx.store.nextOrdinal()}`;
    ctx.store.create({
      id,
      space: input.space,
      thread: input.threadId ?? null,
      text: input.text,
      author: { kind: 'user', id: input.user ?? '@alice:example.org' },
    });
    return { messageId: id, threadId: input.threadId ?? id };
  },
  errorResponse(status, retryAfterS) {
    const retryAfterMs = retryAfterS === undefined ? undefined : Math.ceil(retryAfterS * 1000);
    return {
      status,
      body: {
        errcode: ERRCODES[status] ?? 'M_UNKNOWN',
        error: `HTTP ${status}`,
        ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }),
      },
    };
  },
};

export function startMatrixEmulator(opts: { now?: () => number } = {}): Promise<EmulatorServer> {
  return createEmulatorServer({
    // The emulator core types its platforms; this one is known only to this test.
    platform: 'matrix' as Platform,
    handler: matrixHandler,
    defaults: [],
    ...(opts.now ? { now: opts.now } : {}),
  });
}
