/**
 * A fourth platform defined only in test code: its descriptor, surface and
 * renderer, over the Matrix-flavoured emulator (emulator.ts). It proves that
 * adding a platform takes a descriptor handed to `createRuntime({platforms})`,
 * with nothing under src/ changed.
 */
import { z } from 'zod';
import type { PlatformCapabilities, PlatformDescriptor } from '../../../src/registry/descriptor.js';
import { neutralizeMentions } from '../../../src/render/mentions.js';
import { plainText, type SurfaceFrame } from '../../../src/surfaces/frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type PostedMessage,
  SurfaceError,
  type SurfaceErrorKind,
} from '../../../src/surfaces/surface.js';

/** `@room` pings everyone in a Matrix room. */
export const MATRIX_MENTION_FORMS = ['@(?=room\\b)'];

export const MATRIX_CAPABILITIES: PlatformCapabilities = {
  maxChars: 1500,
  silentPosts: true,
  idempotentCreate: true,
};

/** Plain text: Matrix clients show `body` as written. */
const render = (frame: SurfaceFrame): string => neutralizeMentions(plainText(frame), MATRIX_MENTION_FORMS);

export interface MatrixSurfaceOptions {
  homeserver: string;
  requestTimeoutMs?: number;
}

const KIND_BY_STATUS = (status: number): SurfaceErrorKind =>
  status === 404
    ? 'not-found'
    : status === 429
      ? 'rate-limited'
      : status === 408 || status >= 500
        ? 'transient'
        : status === 401 || status === 403
          ? 'forbidden'
          : 'invalid';

let txnCounter = 0;

export function createMatrixSurface(opts: MatrixSurfaceOptions): ChatSurface {
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const roomOf = (space: string): string => {
    if (!space.startsWith('matrix:')) throw new SurfaceError('invalid', `${space} is not a matrix space`);
    return space.slice('matrix:'.length);
  };

  async function send(
    space: string,
    txnId: string,
    body: unknown,
    callOpts?: CallOpts,
  ): Promise<{ event_id: string }> {
    const signal = callOpts?.signal;
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const url = `${opts.homeserver}/_matrix/client/v3/rooms/${encodeURIComponent(roomOf(space))}/send/m.room.message/${encodeURIComponent(txnId)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]),
      });
    } catch (error) {
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
      throw new SurfaceError('transient', `no answer from the homeserver: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const data = (await response.json().catch(() => ({}))) as {
      event_id?: string;
      errcode?: string;
      retry_after_ms?: number;
    };
    if (response.ok && data.event_id) return { event_id: data.event_id };
    throw new SurfaceError(KIND_BY_STATUS(response.status), `HTTP ${response.status} ${data.errcode ?? ''}`, {
      status: response.status,
      ...(data.errcode ? { code: data.errcode } : {}),
      ...(data.retry_after_ms === undefined ? {} : { retryAfterMs: data.retry_after_ms }),
    });
  }

  return {
    platform: 'matrix',
    capabilities: MATRIX_CAPABILITIES,
    async post(req, callOpts): Promise<PostedMessage> {
      const threadRoot = req.thread ? (req.thread.threadId ?? req.thread.rootMessageId) : undefined;
      const { event_id } = await send(
        req.space,
        req.clientId ?? `turnlog-${++txnCounter}`,
        {
          msgtype: req.silent ? 'm.notice' : 'm.text',
          body: render(req.frame),
          ...(threadRoot ? { 'm.relates_to': { rel_type: 'm.thread', event_id: threadRoot } } : {}),
        },
        callOpts,
      );
      return { messageId: event_id, ...(threadRoot ? { threadId: threadRoot } : {}) };
    },
    async edit(req, callOpts) {
      const body = render(req.frame);
      await send(
        req.space,
        `edit-${++txnCounter}`,
        {
          msgtype: 'm.text',
          body: `* ${body}`,
          'm.new_content': { msgtype: 'm.text', body },
          'm.relates_to': { rel_type: 'm.replace', event_id: req.messageId },
        },
        callOpts,
      );
    },
    async react() {
      throw new SurfaceError('invalid', 'reactions are not part of this test platform');
    },
  };
}

export const matrixConfigSchema = z.object({ homeserver: z.url() }).strict();

export const matrixPlatform: PlatformDescriptor<z.output<typeof matrixConfigSchema>> = {
  id: 'matrix',
  displayName: 'Matrix (test platform)',
  spaceIdPattern: /^![A-Za-z0-9]+:[a-z0-9.-]+$/,
  spaceExample: 'matrix:!room:example.org',
  capabilities: MATRIX_CAPABILITIES,
  budget: { ratePerMinute: 600, channelSpacingMs: 500 },
  rateChannel: (space) => space,
  mentionForms: MATRIX_MENTION_FORMS,
  configSchema: matrixConfigSchema,
  createSurface: (config, context) =>
    createMatrixSurface({
      homeserver: config.homeserver,
      ...(context.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: context.requestTimeoutMs }),
    }),
};
