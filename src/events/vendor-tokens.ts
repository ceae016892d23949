/**
 * Credentials known by their vendor's prefix (`hf_…`, `glpat-…`, `SG.…`),
 * and the cloud secret keys that follow a cloud access-key id: the shapes
 * secret-shapes.ts applies first.
 */

/**
 * Vendor tokens recognisable by their prefix, as one alternation so the text
 * is scanned once for all of them; each alternative starts with a literal.
 * The kind is the index of the group that matched.
 */
export const VENDOR_TOKENS: readonly [kind: string, source: string][] = [
  ['sendgrid-key', String.raw`SG\.[\w-]{16,32}\.[\w-]{16,64}`],
  ['huggingface-token', String.raw`hf_[A-Za-z0-9]{30,}`],
  ['docker-token', String.raw`dckr_(?:pat|oat)_[\w-]{20,}`],
  ['twilio-key', String.raw`SK[0-9a-fA-F]{32}(?![0-9a-fA-F])`],
  ['pypi-token', String.raw`pypi-AgEIcHlwaS5vcmc[\w-]{40,}`],
  ['gitlab-token', String.raw`(?:glpat|gldt|glrt|glptt|glsoat|glft|glimt|glagent|gloas)-[\w-]{20,}`],
  ['digitalocean-token', String.raw`do[opr]_v1_[a-f0-9]{64}`],
  ['shopify-token', String.raw`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`],
  ['databricks-token', String.raw`dapi[a-f0-9]{32}(?:-\d)?`],
  ['linear-key', String.raw`lin_(?:api|oauth)_[\w-]{32,}`],
  ['notion-token', String.raw`(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})`],
  ['groq-key', String.raw`gsk_[\w-]{40,}`],
  ['replicate-token', String.raw`r8_[A-Za-z0-9]{30,}`],
  ['vault-token', String.raw`hv[sbr]\.[\w-]{24,}`],
  ['mailgun-key', String.raw`key-[0-9a-f]{32}(?![0-9a-f])`],
  ['tailscale-key', String.raw`tskey-[\w-]{20,}`],
  ['atlassian-token', String.raw`ATATT3[\w=-]{30,}`],
  ['postman-key', String.raw`PMAK-[\w-]{30,}`],
  ['xai-key', String.raw`xai-[A-Za-z0-9]{30,}`],
  ['perplexity-key', String.raw`pplx-[A-Za-z0-9]{30,}`],
  ['grafana-token', String.raw`(?:glsa|glc)_[\w-]{30,}`],
  ['supabase-token', String.raw`sbp_[a-zA-Z0-9]{30,}`],
  ['sentry-token', String.raw`sntr[yu]s_[\w=+/-]{30,}`],
  ['doppler-token', String.raw`dp\.(?:st|sa|ct|pt)\.[\w-]{30,}`],
  ['square-token', String.raw`sq0(?:atp|csp)-[\w-]{20,}`],
  ['planetscale-token', String.raw`pscale_(?:tkn|pw|oauth)_[\w.-]{30,}`],
  ['age-secret-key', String.raw`AGE-SECRET-KEY-1[0-9A-Z]{50,}`],
  ['figma-token', String.raw`figd_[\w-]{30,}`],
  ['netlify-token', String.raw`nfp_[A-Za-z0-9]{30,}`],
  ['fly-token', String.raw`fo1_[\w-]{30,}`],
  ['pulumi-token', String.raw`pul-[a-f0-9]{40}`],
  ['google-oauth-secret', String.raw`GOCSPX-[\w-]{24,}`],
  ['google-refresh-token', String.raw`1//0[\w-]{30,}`],
  ['firebase-server-key', String.raw`AAAA[\w-]{7}:APA91b[\w-]{50,}`],
  ['heroku-token', String.raw`HRKU-[\w-]{20,}`],
  ['newrelic-key', String.raw`NR(?:AK|JS|II|RA)-[A-Z0-9]{20,}`],
  ['gcp-hmac-access-id', String.raw`GOOG1[A-Z0-9]{40,}`],
  ['alibaba-access-key-id', String.raw`LTAI[A-Za-z0-9]{12,30}(?![A-Za-z0-9])`],
  ['tencent-secret-id', String.raw`AKID[A-Za-z0-9]{32,36}(?![A-Za-z0-9])`],
];
export const VENDOR_PATTERN = new RegExp(
  `(?<![\\w.-])(?:${VENDOR_TOKENS.map(([, source]) => `(${source})`).join('|')})`,
  'g',
);

/**
 * A cloud access-key id is public, but the secret that goes with it is often
 * written right after it (`AKIA… wJalr…`, `LTAI…, …`, a CSV row, a JSON
 * array): by the time this is read the id is a marker, and its kind says
 * which secret follows.
 */
export const CLOUD_SECRET_KINDS: Readonly<Record<string, string>> = {
  'aws-access-key-id': 'aws-secret-access-key',
  'alibaba-access-key-id': 'alibaba-access-key-secret',
  'tencent-secret-id': 'tencent-secret-key',
  'gcp-hmac-access-id': 'gcp-hmac-secret',
};
export const CLOUD_ID_MARKER = String.raw`\[REDACTED:(${Object.keys(CLOUD_SECRET_KINDS).join('|')})\]`;
/** Between an id and its secret: spaces, a tab, `:`, `,`, `=`, quotes (an escaped one too). */
export const CLOUD_PAIR_SEPARATOR = String.raw`[ \t:,='"\\]{1,16}`;
const CLOUD_ID_AT_END = new RegExp(`${CLOUD_ID_MARKER}${CLOUD_PAIR_SEPARATOR.replace('{1,16}', '{0,16}')}$`);

/** A cloud secret access key: 28–64 base64 characters with an upper, a lower and a digit. */
export function isCloudSecret(value: string): boolean {
  return (
    /^[A-Za-z0-9+/=]{28,64}$/.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value) && /\d/.test(value)
  );
}

/**
 * The kind of secret that may come next when `redacted` (already redacted
 * text, such as an item of an args array) ends with a cloud access-key id.
 */
export function cloudSecretKindAfter(redacted: string): string | undefined {
  const kind = CLOUD_ID_AT_END.exec(redacted.slice(-64))?.[1];
  return kind === undefined ? undefined : CLOUD_SECRET_KINDS[kind];
}
