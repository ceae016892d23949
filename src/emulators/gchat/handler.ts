/**
 * The Google Chat v1 REST subset turnlog uses, as a PlatformHandler for the
 * emulator core. googleapis keeps only the origin of `rootUrl`, so the routes
 * are served at `/v1/…`:
 * - `GET    /v1/spaces/{space}`                       spaces.get
 * - `POST   /v1/spaces/{space}/messages`              spaces.messages.create
 * - `GET    /v1/spaces/{space}/messages/{message}`    spaces.messages.get
 * - `PATCH  /v1/spaces/{space}/messages/{message}`    spaces.messages.patch
 * - `PUT    /v1/spaces/{space}/messages/{message}`    spaces.messages.update
 * - `DELETE /v1/spaces/{space}/messages/{message}`    spaces.messages.delete
 * - `…/messages/{message}/reactions[/{reaction}]`     spaces.messages.reactions.create, list, delete (reactions.ts)
 */

import type { EmulatorRequest, HandlerContext, PlatformHandler, PlatformRoute } from '../core/index.js';
import type { CallOp } from '../types.js';
import { createGchatApp } from './app.js';
import { gchatMessageContent } from './card-view.js';
import { createMessageRoute } from './create-message.js';
import { deleteMessageRoute } from './delete-message.js';
import { editMessageRoute } from './edit-message.js';
import { createGchatWorld, type GchatWorldOptions } from './gchat-world.js';
import { gchatErrorResponse, invalidArgument } from './google-errors.js';
import { postInbound } from './inbound.js';
import { reactionsRoute } from './reactions.js';
import { getMessageRoute, getSpaceRoute } from './read-routes.js';
import { isValidSpaceId, spaceName } from './resource-names.js';
import { answering, type GchatRouteDeps } from './route-kit.js';

export interface GchatHandlerOptions extends GchatWorldOptions {
  /** Also refuse message text over 4096 characters (Google's older limit); default false. */
  strict?: boolean;
  /** Epoch ms the app's JWTs are stamped with (the app checks them against its own clock); default `Date.now`. */
  tokenNow?: () => number;
}

/** `/v1/spaces/{space}`, optionally `/messages`, optionally `/{message}`. */
const ROUTE = /^\/v1\/spaces\/([^/]+)(\/messages(?:\/([^/]+))?)?$/;
/** `/v1/spaces/{space}/messages/{message}/reactions`, optionally `/{reaction}`. */
const REACTIONS_ROUTE = /^\/v1\/spaces\/([^/]+)\/messages\/([^/]+)\/reactions(?:\/([^/]+))?$/;

const OP_BY_METHOD: Readonly<Record<string, CallOp>> = {
  POST: 'create',
  PATCH: 'update',
  PUT: 'update',
  DELETE: 'delete',
  GET: 'other',
};

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** A request naming a malformed space id: 400, still recorded under its op. */
function invalidSpaceRoute(method: string, rawSpace: string): PlatformRoute {
  const details = { badSpace: rawSpace };
  return {
    op: OP_BY_METHOD[method] ?? 'other',
    space: null,
    details,
    handle: () =>
      answering(details, () => {
        throw invalidArgument(
          `Invalid resource name ${JSON.stringify(`spaces/${rawSpace}`)}: a space id has only letters, digits, - and _.`,
        );
      }),
  };
}

export function createGchatHandler(opts: GchatHandlerOptions = {}): PlatformHandler {
  const world = createGchatWorld(opts);
  const deps: GchatRouteDeps = { world, strict: opts.strict ?? false };
  const app = createGchatApp({ world, ...(opts.tokenNow === undefined ? {} : { tokenNow: opts.tokenNow }) });

  const match = (req: EmulatorRequest, ctx: HandlerContext): PlatformRoute | null => {
    const reactions = REACTIONS_ROUTE.exec(req.path);
    if (reactions) {
      const [, rawSpace, rawMessage, rawReaction] = reactions;
      const spaceId = decodeSegment(rawSpace!);
      if (spaceId === null || !isValidSpaceId(spaceId)) return invalidSpaceRoute(req.method, rawSpace!);
      const message = decodeSegment(rawMessage!);
      const reaction = rawReaction === undefined ? undefined : decodeSegment(rawReaction);
      if (message === null || reaction === null) return null;
      const space = spaceName(spaceId);
      return reactionsRoute(req, space, `${space}/messages/${message}`, reaction, ctx, deps);
    }
    const parts = ROUTE.exec(req.path);
    if (!parts) return null;
    const [, rawSpace, messagesPart, rawMessage] = parts;
    const spaceId = decodeSegment(rawSpace!);
    if (spaceId === null || !isValidSpaceId(spaceId)) return invalidSpaceRoute(req.method, rawSpace!);
    const space = spaceName(spaceId);

    if (messagesPart === undefined) return req.method === 'GET' ? getSpaceRoute(space, ctx, deps) : null;
    if (rawMessage === undefined)
      return req.method === 'POST' ? createMessageRoute(req, space, ctx, deps) : null;
    const messageSegment = decodeSegment(rawMessage);
    if (messageSegment === null) return null;
    const name = `${space}/messages/${messageSegment}`;
    switch (req.method) {
      case 'GET':
        return getMessageRoute(space, name, ctx, deps);
      case 'PATCH':
      case 'PUT':
        return editMessageRoute(req, space, name, ctx, deps);
      case 'DELETE':
        return deleteMessageRoute(req, space, name, ctx, deps);
      default:
        return null;
    }
  };

  return {
    match,
    inbound: (input, ctx) => postInbound(input, ctx, world),
    errorResponse: gchatErrorResponse,
    reset: () => {
      world.reset();
      app.reset();
    },
    messageContent: gchatMessageContent,
    registerApp: (input) => app.register(input),
    deliverInbound: (message, ctx) => app.deliverInbound(message, ctx),
    click: (input, ctx) => app.click(input, ctx),
    endpoints: { 'GET jwks': () => app.jwks() },
  };
}
