import { isRedactedMarker, REDACTED, redactedAs } from './redaction-marker.js';

/**
 * Credentials recognisable by their own shape or by the syntax around them
 * (run-visibility.md item 3). Each entry is one global regex and what to put
 * in place of a match, applied in order.
 *
 * Linear time: every pattern starts with a literal or a bounded run behind a
 * lookbehind that forbids starting in the middle of a word, and every
 * unbounded run is a single character class that is either followed by
 * nothing or by a character outside the class, so no input makes a pattern
 * rescan the same text more than a bounded number of times
 * (bench/redact.bench.ts feeds each one adversarial input).
 */
export interface SecretShape {
  kind: string;
  pattern: RegExp;
  replace: (match: string, ...groups: (string | undefined)[]) => string;
}

const whole = (kind: string) => () => redactedAs(kind);

/** `name=value` pairs of a cookie header or `curl --cookie`, values hidden, names kept. */
function redactCookiePairs(value: string): string {
  return value
    .split(';')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? pair : `${pair.slice(0, eq + 1)}${REDACTED}`;
    })
    .join(';');
}

/** Decoding a few bytes is cheaper than guessing: only base64 of a PEM *private key* goes. */
function isBase64PrivateKey(base64: string): boolean {
  const head = Buffer.from(base64.slice(0, 64), 'base64').toString('latin1');
  return head.includes('PRIVATE KEY');
}

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    // postgres://u:p@h/db, https://x-access-token:T@github.com — scheme, user and host stay.
    kind: 'url-password',
    pattern:
      /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:/?#@"'`<>]{0,256}:)([^\s/?#@"'`<>]{1,512})@/g,
    replace: (match, prefix, password) =>
      isRedactedMarker(password ?? '') ? match : `${prefix}${REDACTED}@`,
  },
  {
    // A git credential without a scheme in front of it.
    kind: 'x-access-token',
    pattern: /(?<![\w-])(x-access-token:)([^\s@/"'`<>]{1,512})@/g,
    replace: (match, prefix, token) => (isRedactedMarker(token ?? '') ? match : `${prefix}${REDACTED}@`),
  },
  {
    // curl -u user:pass, --user=user:pass. `-u 1000:1000` (docker uid:gid) is not a credential.
    kind: 'basic-auth-flag',
    pattern: /(?<!\S)(-u|--user|--proxy-user)([ \t]+|=)(["']?)([^\s:"'`]{1,256}):([^\s"'`]{1,512})/g,
    replace: (match, flag, sep, quote, user, password) =>
      /^\d+$/.test(user ?? '') && /^\d+$/.test(password ?? '')
        ? match
        : `${flag}${sep}${quote}${user}:${REDACTED}`,
  },
  {
    // The whole header value goes, up to a closing quote or the end of the line; the scheme stays.
    kind: 'authorization-header',
    pattern:
      /\b((?:Proxy-)?Authorization["']?[ \t]*[:=][ \t]*["']?)((?:Bearer|Basic|Token|Bot|Digest|OAuth|ApiKey|Negotiate)[ \t]+)?([^\r\n"'`]+)/gi,
    replace: (match, header, scheme, value) =>
      isRedactedMarker(value ?? '') ? match : `${header}${scheme ?? ''}${REDACTED}`,
  },
  {
    kind: 'cookie-header',
    pattern: /\b((?:Set-)?Cookie["']?[ \t]*:[ \t]*["']?)([^\r\n"'`]+)/gi,
    replace: (_match, header, value) => `${header}${redactCookiePairs(value ?? '')}`,
  },
  {
    kind: 'cookie-flag',
    pattern: /(?<!\S)(--cookie|-b)([ \t]+)(?:(["'])([^\r\n"'`]*)|([^\s"'`]+))/g,
    replace: (match, flag, sep, quote, quoted, bare) => {
      const value = quoted ?? bare ?? '';
      return value.includes('=') ? `${flag}${sep}${quote ?? ''}${redactCookiePairs(value)}` : match;
    },
  },
  {
    kind: 'slack-webhook',
    pattern: /(https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{10,}/g,
    replace: (_match, prefix) => `${prefix}${redactedAs('slack-webhook')}`,
  },
  {
    kind: 'discord-webhook',
    pattern: /(discord(?:app)?\.com\/api\/(?:v\d{1,3}\/)?webhooks\/\d{1,20}\/)[A-Za-z0-9_-]{20,}/g,
    replace: (_match, prefix) => `${prefix}${redactedAs('discord-webhook')}`,
  },
  {
    kind: 'slack-token',
    pattern: /(?<![\w-])(?:(?:xoxe\.)?xox[abposre]-|xapp-\d-)[A-Za-z0-9-]{10,}/g,
    replace: whole('slack-token'),
  },
  {
    kind: 'github-token',
    pattern: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    replace: whole('github-token'),
  },
  {
    // sk-ant-api03-…, sk-proj-…, sk-… (Stripe's sk_live_ uses underscores: below).
    kind: 'api-key',
    pattern: /(?<![\w-])sk-[A-Za-z0-9_-]{20,}/g,
    replace: (match) => redactedAs(match.startsWith('sk-ant-') ? 'anthropic-key' : 'openai-key'),
  },
  {
    kind: 'aws-access-key-id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    replace: whole('aws-access-key-id'),
  },
  {
    kind: 'gcp-api-key',
    pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{30,}/g,
    replace: whole('gcp-api-key'),
  },
  {
    kind: 'gcp-oauth-token',
    pattern: /(?<![\w-])ya29\.[0-9A-Za-z_-]{20,}/g,
    replace: whole('gcp-oauth-token'),
  },
  {
    kind: 'stripe-key',
    pattern: /(?<![\w-])(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z+/=]{10,})/g,
    replace: whole('stripe-key'),
  },
  {
    kind: 'npm-token',
    pattern: /(?<![\w-])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    replace: whole('npm-token'),
  },
  {
    kind: 'jwt',
    pattern: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: whole('jwt'),
  },
  {
    // Base64 of the bot's user id (starts M/N/O), a timestamp, an HMAC.
    kind: 'discord-token',
    pattern: /(?<![\w-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/g,
    replace: whole('discord-token'),
  },
  {
    // A PEM block base64-encoded once more (kubeconfig client-key-data, k8s Secrets).
    kind: 'private-key',
    pattern: /(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}/g,
    replace: (match) => (isBase64PrivateKey(match) ? redactedAs('private-key') : match),
  },
  {
    // A bearer token outside an Authorization header (`-H "Bearer …"`, logs). Prose such as
    // "Bearer authentication" stays: a token is long and carries a digit.
    kind: 'bearer-token',
    pattern: /(?<![\w-])(Bearer[ \t]+)([A-Za-z0-9._~+/-]{16,}=*)/g,
    replace: (match, prefix, token) => (/\d/.test(token ?? '') ? `${prefix}${REDACTED}` : match),
  },
];
