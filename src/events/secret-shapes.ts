import { CommandTracker, commandsBefore } from './command-tracker.js';
import { isRedactedMarker, REDACTED, redactedAs } from './redaction-marker.js';
import { isSecretName } from './secret-names.js';
import {
  CLOUD_ID_MARKER,
  CLOUD_PAIR_SEPARATOR,
  CLOUD_SECRET_KINDS,
  isCloudSecret,
  VENDOR_PATTERN,
  VENDOR_TOKENS,
} from './vendor-tokens.js';

// Read by scrub.ts from here.
export { cloudSecretKindAfter, isCloudSecret } from './vendor-tokens.js';

/**
 * Credentials recognisable by their own shape or by the syntax around them
 * (docs/architecture.md item 3). Each entry is one global regex and what to put
 * in place of a match, applied in order.
 *
 * Linear time: every pattern starts with a literal or a bounded run behind a
 * lookbehind that forbids starting in the middle of a word, and every
 * unbounded run is a single character class that is either followed by
 * nothing or by a character outside the class, so no input makes a pattern
 * rescan the same text more than a bounded number of times
 * (bench/redact.bench.ts feeds each one adversarial input). A replace that
 * needs the command before its flag (`-b`, `-u`) gets it from a
 * CommandTracker, which reads the text once along the matches.
 */
export interface SecretShape {
  kind: string;
  pattern: RegExp;
  replace: (match: string, ...groups: (string | undefined)[]) => string;
  /** Called once a text has been through `replace`, so no state of this shape keeps it. */
  done?: () => void;
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

const userFlagCommands = new CommandTracker();
const cookieFlagCommands = new CommandTracker();
const CONTAINER_TOOLS = new Set(['docker', 'docker-compose', 'podman', 'nerdctl', 'buildah', 'finch']);

/** `name=value; name2=value2`: pairs separated by `;` (one pair with a `;` after it is not enough). */
function isCookieList(value: string): boolean {
  const semi = value.indexOf(';');
  return semi > value.indexOf('=') && value.indexOf('=', semi) !== -1;
}

/** Decoding a few bytes is cheaper than guessing: only base64 of a PEM *private key* goes. */
function isBase64PrivateKey(base64: string): boolean {
  const head = Buffer.from(base64.slice(0, 64), 'base64').toString('latin1');
  return head.includes('PRIVATE KEY');
}

/**
 * Command-line flags that take a password or token as the next word
 * (`--password pw`, `--token hf_…`, `--api-key k`): the flag's name says it,
 * as a variable's does. `--token-file path` names where the secret is, and
 * `--password-stdin` takes none.
 */
function isSecretFlag(flag: string): boolean {
  return isSecretName(flag) && !/(?:stdin|prompt|policy)$/i.test(flag);
}

/** Query parameters that carry a signature or a credential whatever their name says to the name pass. */
const SIGNED_QUERY =
  /([?&;](?:sig|signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|access_token|refresh_token|id_token|client_secret|api_key|apikey|key|token|auth|password|code)=)([^\s&#"'`<>]{4,})/gi;

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    kind: 'vendor-token',
    pattern: VENDOR_PATTERN,
    replace: (match, ...groups) => {
      const index = groups.slice(0, VENDOR_TOKENS.length).findIndex((g) => g !== undefined);
      return index === -1 ? match : redactedAs(VENDOR_TOKENS[index]?.[0] ?? 'token');
    },
  },
  {
    // mysql -pSECRET (attached, as mysql reads it); `mkdir -p dir`, `-p 8080:80` are other tools' -p.
    kind: 'mysql-password-flag',
    pattern:
      /(?<![\w-])(mysql(?:dump|admin|import|check|show|slap)?|mariadb(?:-dump)?)\b([^\n|;&]{0,200}?(?<!\S)-p)(["']?)([^\s"'`]+)/g,
    replace: (match, tool, between, quote, password) =>
      isRedactedMarker(password ?? '') ? match : `${tool}${between}${quote}${REDACTED}`,
  },
  {
    // docker/podman/helm `login -p PW`, redis-cli `-a PW`, sshpass `-p PW`, the mongo tools' `-p PW`,
    // sqlcmd/bcp `-P PW`, the OpenLDAP tools' `-w PW`, openssl `-k PW`.
    kind: 'cli-password-flag',
    pattern:
      /(?<![\w-])((?:(?:login|redis-cli|sshpass|mongo(?:sh|dump|restore|export|import|stat|top|files)?)\b[^\n|;&]{0,200}?(?<!\S)-[pa]|(?:sqlcmd|bcp)\b[^\n|;&]{0,200}?(?<!\S)-P|ldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop)\b[^\n|;&]{0,200}?(?<!\S)-w|openssl\b[^\n|;&]{0,200}?(?<!\S)-k)[ \t]+)(["']?)([^\s"'`]+)/g,
    replace: (match, before, quote, password) =>
      isRedactedMarker(password ?? '') || password?.startsWith('-') || password?.startsWith('$')
        ? match
        : `${before}${quote}${REDACTED}`,
  },
  {
    // openssl -passin pass:PW, -passout pass:PW, -k pass:PW.
    kind: 'openssl-pass',
    pattern: /(?<![\w-])(pass:)([^\s"'`]+)/g,
    replace: (match, prefix, password) => (isRedactedMarker(password ?? '') ? match : `${prefix}${REDACTED}`),
  },
  {
    // htpasswd -b FILE USER PW, htpasswd -nb USER PW: the password is a positional argument.
    kind: 'htpasswd-password',
    pattern:
      /(?<![\w-])(htpasswd[ \t]+-([A-Za-z]{1,8})[ \t]+)([^\s"'`]+)([ \t]+)([^\s"'`]+)(?:([ \t]+)(["']?)([^\s"'`]+))?/g,
    replace: (match, before, flags, first, sep1, second, sep2, quote, third) => {
      if (!flags?.includes('b')) return match;
      // With -n there is no file: USER PW; without it FILE USER PW.
      if (flags.includes('n'))
        return `${before}${first}${sep1}${REDACTED}${sep2 ?? ''}${quote ?? ''}${third ?? ''}`;
      if (third === undefined || isRedactedMarker(third)) return match;
      return `${before}${first}${sep1}${second}${sep2}${quote}${REDACTED}`;
    },
  },
  {
    // `aws configure set aws_secret_access_key V`, `gh secret set NAME --body V`: a setter's name, then the value.
    kind: 'cli-setter',
    pattern:
      /(?<![\w-])((?:configure|config)[ \t]+set[ \t]+(?:--[\w-]{1,64}[ \t]+){0,8}([\w.-]{1,128})[ \t]+|secrets?[ \t]+set[ \t]+[\w.-]{1,128}[ \t]+(?:[^\s]{1,256}[ \t]+){0,8}?(?:-b|--body)(?:[ \t]+|=))(["']?)([^\s"'`]+)/g,
    replace: (match, before, name, quote, value) => {
      if (isRedactedMarker(value ?? '') || value?.startsWith('-') || value?.startsWith('$')) return match;
      return name === undefined || isSecretName(name) ? `${before}${quote}${REDACTED}` : match;
    },
  },
  {
    // A header given unquoted to curl/wget/httpie-style flags: `-H X-Api-Key:V`, `--header=PRIVATE-TOKEN:V`
    // (Authorization is left to its own rule below, which hides the value after the scheme).
    kind: 'header-flag',
    pattern: /(?<!\S)(-H|--header)([ \t]+|=)([\w-]{1,64})([ \t]*:[ \t]*)([^\s"'`]+)/g,
    replace: (match, flag, sep, name, colon, value) =>
      isSecretName(name ?? '') &&
      !/^(?:proxy-)?authorization$/i.test(name ?? '') &&
      !isRedactedMarker(value ?? '')
        ? `${flag}${sep}${name}${colon}${REDACTED}`
        : match,
  },
  {
    // SQL: `… PASSWORD 'pw'`, `IDENTIFIED BY 'pw'` (CREATE/ALTER USER, ROLE, LOGIN).
    kind: 'sql-password',
    pattern: /\b(PASSWORD|IDENTIFIED[ \t]+BY)([ \t]+)(['"])([^'"\r\n]{1,512})\3/gi,
    replace: (match, keyword, sep, quote, password) =>
      isRedactedMarker(password ?? '') ? match : `${keyword}${sep}${quote}${REDACTED}${quote}`,
  },
  {
    // An Azure AD (Entra) client secret: three characters, a digit, `Q~`, then 31–34 more.
    kind: 'azure-ad-client-secret',
    pattern: /(?<![\w~.-])[\w.-]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])/g,
    replace: whole('azure-ad-client-secret'),
  },
  {
    // PuTTY's key file: the private lines, base64, after `Private-Lines: N`.
    kind: 'putty-private-key',
    pattern: /(Private-Lines:[ \t]*\d{1,4}[ \t]*\r?\n)(?:[A-Za-z0-9+/=]+(?:\r?\n|$))+/g,
    replace: (_match, header) => `${header}${redactedAs('private-key')}\n`,
  },
  {
    kind: 'secret-flag',
    pattern:
      /(?<!\S)(--?(?=[\w-]{0,63}?(?:key|token|secret|pass|pwd|auth|credential|pat|cookie))[A-Za-z][\w-]{0,63})([ \t]+)(["']?)([^\s"'`<>|&;()]{1,512})/gi,
    replace: (match, flag, sep, quote, value) =>
      isSecretFlag(flag ?? '') &&
      !value?.startsWith('-') &&
      !value?.startsWith('$') &&
      !isRedactedMarker(value ?? '')
        ? `${flag}${sep}${quote}${REDACTED}`
        : match,
  },
  {
    // A Twilio auth token is 32 hex digits, often right after its account SID (`AC…`), as a positional argument.
    kind: 'twilio-token',
    pattern: /(?<![\w-])(AC[0-9a-f]{32}(?:["'])?(?:[ \t]+|[:,][ \t]*)(?:["'])?)([0-9a-f]{32})(?![0-9a-f])/g,
    replace: (_match, sid) => `${sid}${redactedAs('twilio-token')}`,
  },
  {
    // `https://TOKEN@host` — userinfo without a password, long enough to be a token and carrying a digit.
    kind: 'url-userinfo-token',
    pattern: /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)([A-Za-z0-9_.~-]{20,256})@/g,
    replace: (match, scheme, token) => (/\d/.test(token ?? '') ? `${scheme}${REDACTED}@` : match),
  },
  {
    kind: 'url-query-secret',
    pattern: SIGNED_QUERY,
    replace: (match, name, value) => (isRedactedMarker(value ?? '') ? match : `${name}${REDACTED}`),
  },
  {
    // Telegram bot tokens, in a URL (`/bot<id>:<secret>/`) or alone.
    kind: 'telegram-bot-token',
    pattern: /(?<![\w-])((?:bot)?\d{8,10}:)(AA[\w-]{30,})/g,
    replace: (_match, id) => `${id}${redactedAs('telegram-bot-token')}`,
  },
  {
    // postgres://u:p@h/db, https://x-access-token:T@github.com — scheme, user and host stay.
    kind: 'url-password',
    pattern:
      /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:/?#@"'`<>]{0,256}:)([^\s/?"'`<>]{1,512})@/g,
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
    // curl -u user:pass, --user=user:pass. `-u 1000:1000` and a container tool's `-u app:app`
    // (uid:gid, user:group) are not credentials.
    kind: 'basic-auth-flag',
    pattern: /(?<!\S)(-u|--user|--proxy-user)([ \t]+|=)(["']?)([^\s:"'`]{1,256}):([^\s"'`]{1,512})/g,
    // A container tool's: kept when the last command named before the flag on its line (≤256 chars)
    // is docker, podman, nerdctl, buildah or finch (`docker run img curl -u a:pw` still loses pw).
    replace: (match, flag, sep, quote, user, password, offset: unknown, text: unknown) =>
      (/^\d+$/.test(user ?? '') && /^\d+$/.test(password ?? '')) ||
      (flag !== '--proxy-user' &&
        CONTAINER_TOOLS.has(commandsBefore(userFlagCommands, offset, text).last ?? ''))
        ? match
        : `${flag}${sep}${quote}${user}:${REDACTED}`,
    done: () => userFlagCommands.forget(),
  },
  {
    // The whole header value goes, up to a closing quote, a tab (a command's next word) or the line's end.
    kind: 'authorization-header',
    pattern:
      /\b((?:Proxy-)?Authorization["']?[ \t]*[:=][ \t]*["']?)((?:Bearer|Basic|Token|Bot|Digest|OAuth|ApiKey|Negotiate)[ \t]+)?([^\r\n\t"'`]+)/gi,
    replace: (match, header, scheme, value) =>
      isRedactedMarker(value ?? '') ? match : `${header}${scheme ?? ''}${REDACTED}`,
  },
  {
    kind: 'cookie-header',
    pattern: /\b((?:Set-)?Cookie["']?[ \t]*:[ \t]*["']?)([^\r\n\t"'`]+)/gi,
    replace: (_match, header, value) => `${header}${redactCookiePairs(value ?? '')}`,
  },
  {
    // `--cookie` always; `-b` is curl's cookie flag only (`git checkout -b a=b`, `sort -b` are not):
    // its value goes when curl is named before it on its line, or when it reads as cookies (`a=1; b=2`).
    kind: 'cookie-flag',
    pattern: /(?<!\S)(--cookie|-b)([ \t]+)(?:(["'])([^\r\n"'`]*)|([^\s"'`]+))/g,
    replace: (match, flag, sep, quote, quoted, bare, offset: unknown, text: unknown) => {
      const value = quoted ?? bare ?? '';
      if (!value.includes('=')) return match;
      const cookie =
        flag === '--cookie' || isCookieList(value) || commandsBefore(cookieFlagCommands, offset, text).curl;
      return cookie ? `${flag}${sep}${quote ?? ''}${redactCookiePairs(value)}` : match;
    },
    done: () => cookieFlagCommands.forget(),
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
    pattern: /(?<![\w-])(?:(?:xoxe\.)?xox[abposrecd]-|xapp-\d-)[A-Za-z0-9-]{10,}/g,
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
    // After every id above is a marker: the secret that follows one on the same line.
    kind: 'cloud-secret-key',
    pattern: new RegExp(
      `${CLOUD_ID_MARKER}(${CLOUD_PAIR_SEPARATOR})([A-Za-z0-9+/=]{28,64})(?![A-Za-z0-9+/=])`,
      'g',
    ),
    replace: (match, idKind, sep, secret) => {
      const kind = CLOUD_SECRET_KINDS[idKind ?? ''];
      return kind !== undefined && isCloudSecret(secret ?? '')
        ? `${redactedAs(idKind ?? '')}${sep}${redactedAs(kind)}`
        : match;
    },
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
    // A JWE (five segments: header, key, iv, ciphertext, tag): the header is base64url JSON, the rest is not.
    kind: 'jwe',
    pattern:
      /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: whole('jwe'),
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
