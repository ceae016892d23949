/**
 * The googleapis Chat v1 client the surface talks through. Production:
 * Google's auth with the `chat.bot` scope from a service-account key file or
 * application default credentials. Against an emulator (`apiUrl`): no auth
 * (no Authorization header) and `rootUrl: apiUrl + '/'` — googleapis keeps
 * only the origin, so the emulator serves `/v1/…` at its root.
 *
 * `chat` comes from googleapis' own Chat module (what `google.chat` calls):
 * the same client without loading the other ~300 APIs.
 */
import {
  chat,
  type chat_v1,
  type GlobalOptions,
  auth as googleAuth,
} from 'googleapis/build/src/apis/chat/index.js';

export const CHAT_BOT_SCOPE = 'https://www.googleapis.com/auth/chat.bot';

/** What `auth` may be: a google-auth-library client (GoogleAuth, JWT, OAuth2Client …) or an API key. */
export type GchatAuth = NonNullable<GlobalOptions['auth']>;

export interface GchatClientOptions {
  /** An emulator's origin (`http://127.0.0.1:PORT`); absent → Google. */
  apiUrl?: string;
  /** A service-account key file; absent → application default credentials. */
  credentials?: string;
  /** A ready auth client; wins over `credentials`. */
  auth?: GchatAuth;
}

export interface GchatClient {
  chat: chat_v1.Chat;
  /** The auth in use; undefined against an emulator without `auth`. */
  auth: GchatAuth | undefined;
}

/** `http://host:port[/]` → `http://host:port/`; anything but an http(s) URL is refused by name. */
function rootUrlOf(apiUrl: string): string {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new TypeError(`createGchatSurface: apiUrl ${JSON.stringify(apiUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`createGchatSurface: apiUrl ${JSON.stringify(apiUrl)} must be http(s)`);
  }
  return `${url.origin}/`;
}

export function createGchatClient(opts: GchatClientOptions): GchatClient {
  const auth: GchatAuth | undefined =
    opts.auth ??
    (opts.apiUrl === undefined
      ? new googleAuth.GoogleAuth({
          scopes: [CHAT_BOT_SCOPE],
          ...(opts.credentials === undefined ? {} : { keyFile: opts.credentials }),
        })
      : undefined);
  const client = chat({
    version: 'v1',
    // The runtime owns retries (budget, Retry-After, backoff); gaxios must not add its own.
    retry: false,
    // Node's own fetch: gaxios' default (node-fetch 3) emits an unhandled 'error' when a call is aborted
    // or times out after its answer started arriving, which would crash the process.
    fetchImplementation: globalThis.fetch,
    ...(opts.apiUrl === undefined ? {} : { rootUrl: rootUrlOf(opts.apiUrl) }),
    ...(auth === undefined ? {} : { auth }),
  });
  return { chat: client, auth };
}
