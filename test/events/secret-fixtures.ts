/**
 * Credential fixtures shaped like real leaked payloads, and fast-check
 * generators for each credential family. Every value is a fake.
 */
import fc from 'fast-check';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
/** Password characters that need no quoting in a shell. */
const PW = `${ALNUM}!%^*+`;

/**
 * Arbitrary text: any grapheme (other scripts, emoji), plus the characters the
 * redaction and control patterns care about. (fast-check's `binary` unit would
 * do too, but costs seconds to initialise on this shared machine.)
 */
export const anyText = (maxLength = 200): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      fc.constantFrom(
        '\n',
        '\r',
        '\t',
        '\x00',
        '\x07',
        '\x1b',
        '\x7f',
        '\x9b',
        '"',
        "'",
        '=',
        ':',
        '-',
        '\\',
        '@',
        '/',
      ),
    ),
    maxLength,
  });

export function randomToken(
  alphabet: string,
  minLength: number,
  maxLength = minLength,
): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
}

/** A credential as it appears in text, and the part of it that must never leak. */
export interface PlacedSecret {
  family: string;
  text: string;
  secret: string;
  /** The same command as separate words (`policy_request.command` + `args`), where the family is one. */
  argv?: string[];
}

const placed =
  (family: string, render: (secret: string) => string) =>
  (secret: string): PlacedSecret => ({ family, text: render(secret), secret });

/** One generator per credential family of docs/architecture.md item 3. */
export const SECRET_FAMILIES: fc.Arbitrary<PlacedSecret>[] = [
  fc
    .tuple(fc.constantFrom('a', 'b', 'p', 'o', 's', 'r'), randomToken(ALNUM, 24, 48))
    .map(([c, s]) => placed('slack', (v) => `xox${c}-1234567890-${v}`)(s)),
  randomToken(ALNUM, 36).map(placed('github ghp_', (v) => `ghp_${v}`)),
  randomToken(ALNUM, 36).map(placed('github gho_', (v) => `gho_${v}`)),
  randomToken(ALNUM, 36).map(placed('github ghs_', (v) => `ghs_${v}`)),
  randomToken(ALNUM, 36).map(placed('github ghu_', (v) => `ghu_${v}`)),
  randomToken(ALNUM, 60).map(placed('github_pat_', (v) => `github_pat_11ABCDEFG0_${v}`)),
  randomToken(ALNUM, 20, 40).map(
    placed('x-access-token', (v) => `git clone https://x-access-token:${v}@github.com/o/r.git`),
  ),
  randomToken(`${ALNUM}-_`, 40, 90).map(placed('anthropic', (v) => `sk-ant-api03-${v}`)),
  randomToken(`${ALNUM}-_`, 40, 90).map(placed('openai project', (v) => `sk-proj-${v}`)),
  randomToken(ALNUM, 48).map(placed('openai', (v) => `sk-${v}`)),
  randomToken(UPPER_DIGITS, 16).map(placed('aws AKIA', (v) => `AKIA${v}`)),
  randomToken(UPPER_DIGITS, 16).map(placed('aws ASIA', (v) => `ASIA${v}`)),
  randomToken(`${ALNUM}-_`, 35).map(placed('gcp', (v) => `AIza${v}`)),
  randomToken(ALNUM, 24, 99).map(placed('stripe sk_live_', (v) => `sk_live_${v}`)),
  randomToken(ALNUM, 24, 99).map(placed('stripe rk_live_', (v) => `rk_live_${v}`)),
  randomToken(ALNUM, 32).map(placed('stripe whsec_', (v) => `whsec_${v}`)),
  randomToken(`${ALNUM}._-`, 20, 60).map(placed('bearer header', (v) => `Authorization: Bearer ${v}`)),
  randomToken(`${ALNUM}+/`, 20, 60).map(placed('basic header', (v) => `-H "Authorization: Basic ${v}="`)),
  randomToken(ALNUM, 20, 40).map(placed('token header', (v) => `Authorization: token ${v}`)),
  randomToken(ALNUM, 20, 60).map(placed('cookie', (v) => `Cookie: session=${v}; theme=dark`)),
  randomToken(ALNUM, 20, 60).map(placed('set-cookie', (v) => `Set-Cookie: sid=${v}; Path=/; HttpOnly`)),
  randomToken(`${ALNUM}!*`, 12, 40).map(
    placed('url password', (v) => `postgres://app:${v}@db.internal:5432/app`),
  ),
  randomToken(ALNUM, 12, 40).map(placed('curl -u', (v) => `curl -u deploy:${v} https://example.com/`)),
  fc.array(randomToken(`${ALNUM}+/`, 64), { minLength: 2, maxLength: 6 }).map((lines) => ({
    family: 'pem',
    text: `-----BEGIN RSA PRIVATE KEY-----\n${lines.join('\n')}\n-----END RSA PRIVATE KEY-----`,
    secret: lines.join(''),
  })),
  randomToken(`${ALNUM}/+`, 40).map(placed('env secret', (v) => `AWS_SECRET_ACCESS_KEY=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('env token', (v) => `export DEPLOY_TOKEN=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('env password', (v) => `PASSWORD=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('env passwd', (v) => `MYSQL_PASSWD=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('env api key', (v) => `API_KEY=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('yaml', (v) => `\napi_key: ${v}\n`)),
  randomToken(ALNUM, 12, 40).map(placed('flag', (v) => `--token=${v}`)),
  randomToken(ALNUM, 12, 40).map(placed('npmrc', (v) => `//registry.npmjs.org/:_authToken=${v}`)),
  randomToken(`${ALNUM} !#`, 12, 40).map(placed('json password', (v) => `{"password": "${v}"}`)),
  randomToken(ALNUM, 12, 40).map(placed('json apiKey', (v) => `{"apiKey":"${v}"}`)),
  randomToken(ALNUM, 12, 40).map(placed('json client_secret', (v) => `{"client_secret": "${v}"}`)),
  ...CLI_FLAG_FAMILIES(),
  ...VENDOR_FAMILIES(),
  ...URL_AND_CONNECTION_FAMILIES(),
  ...AUDIT_FAMILIES(),
  ...CLOUD_KEY_FAMILIES(),
  ...ARGV_FAMILIES(),
  ...PROSE_FAMILIES(),
];

/** Password and token flags of common command-line tools (issue 9 item 5). */
function CLI_FLAG_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  return [
    randomToken(PW, 8, 30).map(placed('mysql -p<pw>', (v) => `mysql -u root -p${v} -h db.internal app`)),
    randomToken(PW, 8, 30).map(
      placed('mysqldump -p<pw>', (v) => `mysqldump --user=app -p${v} app > dump.sql`),
    ),
    randomToken(PW, 8, 30).map(placed('--password <pw>', (v) => `mysql --user app --password ${v} app`)),
    randomToken(PW, 8, 30).map(placed('--password=<pw>', (v) => `psql --password=${v} -h db`)),
    randomToken(ALNUM, 34).map(placed('--token hf_', (v) => `huggingface-cli login --token hf_${v}`)),
    randomToken(ALNUM, 20, 40).map(placed('--token <t>', (v) => `vault login --token ${v}`)),
    randomToken(ALNUM, 20, 40).map(placed('--api-key <k>', (v) => `mycli deploy --api-key ${v} --region eu`)),
    randomToken(ALNUM, 20, 40).map(
      placed('--auth-token <t>', (v) => `sentry-cli --auth-token "${v}" releases`),
    ),
    randomToken(`${ALNUM}_-`, 27).map(
      placed('docker login -p dckr_pat_', (v) => `docker login -u me -p dckr_pat_${v} docker.io`),
    ),
    randomToken(PW, 8, 30).map(
      placed('docker login -p <pw>', (v) => `docker login -u me -p ${v} registry.example.com`),
    ),
    randomToken(PW, 8, 30).map(placed('redis-cli -a', (v) => `redis-cli -h cache -a ${v} ping`)),
    randomToken(PW, 8, 30).map(placed('sshpass -p', (v) => `sshpass -p ${v} ssh deploy@host`)),
    randomToken(PW, 8, 30).map(placed('openssl pass:', (v) => `openssl pkcs12 -in a.p12 -passin pass:${v}`)),
    randomToken(PW, 8, 30).map(placed('curl --user', (v) => `curl --user admin:${v} https://jenkins/`)),
    randomToken(PW, 8, 30).map(
      placed('curl in a container -u', (v) => `docker run --rm curlimages/curl curl -u admin:${v} https://x`),
    ),
    randomToken(ALNUM, 12, 40).map(
      placed('curl -b', (v) => `curl -sS -b session=${v} https://app.example.com/`),
    ),
    randomToken(ALNUM, 12, 40).map(
      placed('-b cookie list', (v) => `http app.example.com -b "sid=${v}; theme=dark"`),
    ),
  ];
}

/** Vendor token prefixes (issue 9 item 5). */
function VENDOR_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  return [
    fc
      .tuple(randomToken(`${ALNUM}_-`, 22), randomToken(`${ALNUM}_-`, 43))
      .map(([a, b]) => ({ family: 'sendgrid SG.', text: `key is SG.${a}.${b}`, secret: `${a}.${b}` })),
    randomToken(ALNUM, 34).map(placed('huggingface hf_', (v) => `token hf_${v}`)),
    randomToken(`${ALNUM}_-`, 27).map(placed('docker dckr_pat_', (v) => `dckr_pat_${v}`)),
    // The account SID is public (and fixed here, so it never contains another sample's secret).
    randomToken(HEX, 32).map(
      placed('twilio positional', (v) => `twilio login AC0123456789abcdef0123456789abcdef ${v}`),
    ),
    randomToken(HEX, 32).map(placed('twilio SK', (v) => `SK${v}`)),
    randomToken(ALNUM, 36).map(placed('npm npm_', (v) => `npm_${v}`)),
    randomToken(`${ALNUM}_-`, 60, 120).map(placed('pypi', (v) => `pypi-AgEIcHlwaS5vcmc${v}`)),
    randomToken(`${ALNUM}_-`, 20).map(placed('gitlab glpat-', (v) => `glpat-${v}`)),
    randomToken(HEX, 64).map(placed('digitalocean dop_v1_', (v) => `dop_v1_${v}`)),
    randomToken(HEX, 32).map(placed('shopify shpat_', (v) => `shpat_${v}`)),
    randomToken(HEX, 32).map(placed('databricks dapi', (v) => `dapi${v}`)),
    randomToken(`${ALNUM}_-`, 40).map(placed('linear lin_api_', (v) => `lin_api_${v}`)),
    randomToken(ALNUM, 43).map(placed('notion secret_', (v) => `secret_${v}`)),
    randomToken(`${ALNUM}_-`, 40, 60).map(placed('groq gsk_', (v) => `gsk_${v}`)),
    randomToken(ALNUM, 40).map(placed('replicate r8_', (v) => `r8_${v}`)),
    randomToken(`${ALNUM}`, 24, 90).map(placed('vault hvs.', (v) => `hvs.${v}`)),
    randomToken(ALNUM, 30).map(
      placed('telegram bot', (v) => `https://api.telegram.org/bot123456789:AA${v}123/getMe`),
    ),
    randomToken(HEX, 32).map(placed('mailgun key-', (v) => `key-${v}`)),
    randomToken(ALNUM, 30, 40).map(placed('tailscale tskey-', (v) => `tskey-auth-${v}`)),
    randomToken(`${ALNUM}_-`, 40).map(placed('atlassian ATATT', (v) => `ATATT3xFfGF0${v}`)),
    randomToken(ALNUM, 40).map(placed('postman PMAK-', (v) => `PMAK-${v}`)),
    randomToken(ALNUM, 40).map(placed('xai', (v) => `xai-${v}`)),
    randomToken(ALNUM, 40).map(placed('perplexity', (v) => `pplx-${v}`)),
    randomToken(ALNUM, 40).map(placed('grafana glsa_', (v) => `glsa_${v}_0a1b2c3d`)),
    randomToken(ALNUM, 40).map(placed('supabase sbp_', (v) => `sbp_${v}`)),
  ];
}

/** Secrets in URLs and the connection strings of the major clouds and databases (issue 9 item 5). */
function URL_AND_CONNECTION_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  return [
    randomToken(ALNUM, 24, 40).map(
      placed('url userinfo token', (v) => `git clone https://${v}1@git.example.com/o/r.git`),
    ),
    randomToken(ALNUM, 12, 40).map(
      placed('url ?token=', (v) => `GET https://api.example.com/v1/x?token=${v}&page=2`),
    ),
    randomToken(ALNUM, 12, 40).map(placed('url &key=', (v) => `https://maps.example.com/api?q=x&key=${v}`)),
    randomToken(`${ALNUM}%`, 20, 60).map(
      placed(
        'azure sas sig=',
        (v) => `https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2026&sp=r&sig=${v}`,
      ),
    ),
    randomToken(HEX, 64).map(
      placed(
        'aws presigned',
        (v) => `https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${v}`,
      ),
    ),
    randomToken(`${ALNUM}+/`, 86).map(
      placed(
        'azure storage',
        (v) =>
          `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${v}==;EndpointSuffix=core.windows.net`,
      ),
    ),
    randomToken(`${ALNUM}+/`, 43).map(
      placed(
        'azure service bus',
        (v) => `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${v}=`,
      ),
    ),
    randomToken(PW, 8, 30).map(
      placed('ado.net', (v) => `Server=tcp:db.database.windows.net;User ID=app;Password=${v};`),
    ),
    randomToken(`${ALNUM}!*`, 8, 30).map(
      placed('mongo', (v) => `mongodb+srv://admin:${v}@cluster0.x.mongodb.net/db`),
    ),
    randomToken(`${ALNUM}!*`, 8, 30).map(
      placed('postgres @ in pw', (v) => `postgresql://app:${v}@x@db:5432/app`),
    ),
    randomToken(`${ALNUM}`, 8, 30).map(
      placed('rediss', (v) => `rediss://default:${v}@cache.example.com:6380`),
    ),
    randomToken(`${ALNUM}`, 8, 30).map(placed('amqps', (v) => `amqps://user:${v}@mq.example.com/vhost`)),
    randomToken(`${ALNUM}`, 8, 30).map(
      placed('jdbc', (v) => `jdbc:mysql://db:3306/app?user=app&password=${v}`),
    ),
  ];
}

/** Variants of each family found missing by the issue 9 audit (re-attacking `turnlog serve`). */
function AUDIT_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  const B64 = `${ALNUM}+/`;
  return [
    // password and token flags of more CLIs
    randomToken(PW, 8, 30).map(placed('mysql -p"<pw>"', (v) => `mysql -uroot -p"${v}" -h db`)),
    randomToken(PW, 8, 30).map(placed("mysql -p'<pw>'", (v) => `mysqldump -p'${v}' app`)),
    randomToken(PW, 8, 30).map(placed('mongosh -p', (v) => `mongosh --host db -u admin -p ${v} --quiet`)),
    randomToken(PW, 8, 30).map(
      placed('sqlcmd -P', (v) => `sqlcmd -S tcp:db.database.windows.net -U sa -P ${v} -Q "select 1"`),
    ),
    randomToken(PW, 8, 30).map(
      placed('ldapsearch -w', (v) => `ldapsearch -x -D cn=admin,dc=ex -w ${v} -b dc=ex`),
    ),
    randomToken(PW, 8, 30).map(placed('htpasswd -b', (v) => `htpasswd -bc /etc/nginx/.htpasswd admin ${v}`)),
    randomToken(PW, 8, 30).map(placed('htpasswd -nb', (v) => `htpasswd -nbB admin ${v}`)),
    randomToken(PW, 8, 30).map(placed('openssl -k', (v) => `openssl enc -aes-256-cbc -k ${v} -in a -out b`)),
    randomToken(B64, 40).map(
      placed('aws configure set', (v) => `aws configure set aws_secret_access_key ${v}`),
    ),
    randomToken(ALNUM, 20, 40).map(
      placed('gh secret set --body', (v) => `gh secret set DEPLOY_KEY --body ${v}`),
    ),
    randomToken(ALNUM, 20, 40).map(
      placed('curl -H Name:value', (v) => `curl -H X-Api-Key:${v} https://api.example.com`),
    ),
    randomToken(PW, 8, 30).map(
      placed("SQL PASSWORD '<pw>'", (v) => `psql -c "ALTER USER app WITH PASSWORD '${v}'"`),
    ),
    randomToken(PW, 8, 30).map(
      placed("SQL IDENTIFIED BY '<pw>'", (v) => `CREATE USER 'app'@'%' IDENTIFIED BY '${v}';`),
    ),
    // vendor token prefixes
    randomToken(ALNUM, 40, 60).map(placed('slack xoxc-', (v) => `xoxc-1234567890-${v}`)),
    randomToken(ALNUM, 40, 60).map(placed('slack xoxd- cookie', (v) => `d=xoxd-${v}`)),
    randomToken(`${ALNUM}_-`, 28).map(placed('google GOCSPX-', (v) => `client secret GOCSPX-${v}`)),
    randomToken(`${ALNUM}_-`, 60, 100).map(placed('google refresh 1//', (v) => `refresh 1//0g${v}`)),
    randomToken(ALNUM, 31, 34).map(placed('azure ad client secret', (v) => `AZURE_CS: abc8Q~${v}`)),
    randomToken(`${ALNUM}_-`, 120, 140).map(placed('firebase AAAA:APA91b', (v) => `AAAAx1y2z3w:APA91b${v}`)),
    randomToken(`${ALNUM}_-`, 60).map(placed('heroku HRKU-', (v) => `HRKU-${v}`)),
    randomToken(UPPER_DIGITS, 27).map(placed('new relic NRAK-', (v) => `NRAK-${v}`)),
    randomToken(UPPER_DIGITS, 55, 61).map(placed('gcp hmac GOOG1', (v) => `GOOG1E${v}`)),
    randomToken(`${ALNUM}_-`, 40, 80).map(
      placed(
        'jwe (5 parts)',
        (v) =>
          `eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.${v}.48V1_ALb6US04U3b.5eym8TW_c8SuK0lt.XFBoMYUZodetZdvTiFvSkQ`,
      ),
    ),
    // URLs and connection strings
    randomToken(ALNUM, 8, 20).map(placed('url password with #', (v) => `mysql://root:Pw#${v}@db:3306/x`)),
    // private keys split across lines, elements or chunks
    fc.array(randomToken(B64, 64), { minLength: 2, maxLength: 4 }).map((lines) => ({
      family: 'pem body without its BEGIN line (a later chunk)',
      text: `${lines.join('\n')}\n-----END PRIVATE KEY-----`,
      secret: lines.join('\n'),
    })),
    // The middle chunk of a streamed key: neither BEGIN nor END (random lines with a digit and both cases).
    fc.array(randomToken(B64, 61), { minLength: 2, maxLength: 5 }).map((lines) => ({
      family: 'pem body without its BEGIN or END line (a middle chunk)',
      text: `${lines.map((l) => `aZ0${l}`).join('\n')}\n`,
      secret: lines.map((l) => `aZ0${l}`).join('\n'),
    })),
    fc.array(randomToken(B64, 64), { minLength: 2, maxLength: 4 }).map((lines) => ({
      family: 'pem with CRLF',
      text: `-----BEGIN EC PRIVATE KEY-----\r\n${lines.join('\r\n')}\r\n-----END EC PRIVATE KEY-----\r\n`,
      secret: lines.join('\r\n'),
    })),
    randomToken(B64, 64).map(
      placed(
        'putty key',
        (v) =>
          `PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPublic-Lines: 1\nAAAAB3Nza\nPrivate-Lines: 1\n${v}\nPrivate-MAC: 0a1b2c`,
      ),
    ),
  ];
}

/**
 * Cloud access-key ids (Alibaba `LTAI…`, Tencent `AKID…`) and the secret that
 * follows an id on the same line: a base64-ish token right after it, however
 * it is separated (spaces, tab, `:`, `,`, `=`, quotes, a JSON array).
 */
function CLOUD_KEY_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  // Shaped like the real ones: mixed case and digits (the rule asks for all three).
  const secret = (length: number) =>
    randomToken(`${ALNUM}+/`, length - 3).map((v) => `${v.slice(0, 5)}aZ9${v.slice(5)}`);
  const aws = randomToken(UPPER_DIGITS, 16).map((v) => `AKIA${v}`);
  const alibaba = randomToken(ALNUM, 20).map((v) => `LTAI${v}`);
  const tencent = randomToken(ALNUM, 32).map((v) => `AKID${v}`);
  const gcp = randomToken(UPPER_DIGITS, 55).map((v) => `GOOG1E${v}`);
  const pair = (
    family: string,
    id: fc.Arbitrary<string>,
    length: number,
    render: (id: string, s: string) => string,
  ) => fc.tuple(id, secret(length)).map(([i, s]) => ({ family, text: render(i, s), secret: s }));
  return [
    randomToken(ALNUM, 12, 30).map(placed('alibaba LTAI', (v) => `LTAI${v}`)),
    randomToken(ALNUM, 32, 36).map(placed('tencent AKID', (v) => `AKID${v}`)),
    pair('aws id then secret (space)', aws, 40, (i, s) => `keys: ${i} ${s}`),
    pair('aws id then secret (tab)', aws, 40, (i, s) => `${i}\t${s}\tus-east-1`),
    pair('aws id then secret (csv)', aws, 40, (i, s) => `deploy,,${i},${s}`),
    pair('aws id then secret (quoted)', aws, 40, (i, s) => `Credentials("${i}", "${s}")`),
    pair('aws id then secret (=)', aws, 40, (i, s) => `${i}=${s}`),
    pair('aws id then secret (json args)', aws, 40, (i, s) => `{"args":["${i}","${s}"]}`),
    pair('alibaba id then secret', alibaba, 30, (i, s) => `${i} , ${s}`),
    pair('alibaba id: secret', alibaba, 30, (i, s) => `aliyun configure ${i}:${s}`),
    pair('tencent id then secret', tencent, 32, (i, s) => `${i} ${s}`),
    pair("tencent id, 'secret'", tencent, 32, (i, s) => `'${i}', '${s}'`),
    pair('gcp hmac id: secret', gcp, 40, (i, s) => `${i}: ${s}`),
  ];
}

/**
 * Commands given as separate words, as `policy_request.command` + `args` carry
 * them (issue 22.3): the text is the same command on one line.
 */
export function ARGV_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  const argv =
    (family: string, words: (secret: string) => string[]) =>
    (v: string): PlacedSecret => {
      const secret = `${v}-Zq7!`;
      const parts = words(secret);
      return { family, text: parts.join(' '), secret, argv: parts };
    };
  const pw = randomToken(PW, 8, 24);
  return [
    pw.map(argv('argv --password <pw>', (s) => ['deploy', '--password', s, '--verbose'])),
    pw.map(argv('argv mysql -p<pw>', (s) => ['mysql', '-uroot', `-p${s}`, 'app'])),
    pw.map(argv('argv curl -u user:<pw>', (s) => ['curl', '-u', `admin:${s}`, 'https://api.example.com'])),
    pw.map(argv('argv gh secret set --body', (s) => ['gh', 'secret', 'set', 'DEPLOY_KEY', '--body', s])),
    pw.map(
      argv('argv docker login -p', (s) => ['docker', 'login', '-u', 'me', '-p', s, 'registry.example.com']),
    ),
    pw.map(argv('argv redis-cli -a', (s) => ['redis-cli', '-h', 'cache', '-a', s, 'ping'])),
    pw.map(
      argv('argv -H Authorization', (s) => [
        'curl',
        '-H',
        `Authorization: Bearer ${s}`,
        'https://api.example.com',
      ]),
    ),
  ];
}

/** Issue 22: a password a person types as prose (a digit and an upper case letter: not a plain word). */
function PROSE_FAMILIES(): fc.Arbitrary<PlacedSecret>[] {
  const prose = randomToken(ALNUM, 6, 20).map((v) => `${v}Z9`);
  return [
    prose.map(placed('prose: my password is <pw>', (v) => `my password is ${v}, thanks`)),
    prose.map(placed('prose: pw: <pw>', (v) => `login as admin pw: ${v}`)),
  ];
}

export const ENV_FILE = `# production settings
DATABASE_URL=postgres://app:Sup3rS3cret!@db.prod.internal:5432/app
REDIS_URL=redis://:r3d1sPassw0rd@cache:6379/0
STRIPE_SECRET_KEY=sk_live_51H8xYzAbCdEfGhIjKlMnOpQr
SLACK_BOT_TOKEN=xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx
GITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456
OPENAI_API_KEY=sk-proj-AbCdEf1234567890GhIjKlMnOpQrSt
ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf1234567890-GhIjKlMnOp_qrstuvwx
AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
GOOGLE_API_KEY=AIzaSyA1234567890abcdefghijklmnopqrstu
SESSION_SECRET="correct horse battery staple"
SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0
PORT=3000
NODE_ENV=production
`;

export const ENV_FILE_SECRETS = [
  'Sup3rS3cret!',
  'r3d1sPassw0rd',
  '51H8xYzAbCdEfGhIjKlMnOpQr',
  'AbCdEfGhIjKlMnOpQrStUvWx',
  '1234567890abcdefghijABCDEFGHIJ123456',
  'AbCdEf1234567890GhIjKlMnOpQrSt',
  'AbCdEf1234567890-GhIjKlMnOp_qrstuvwx',
  'IOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'SyA1234567890abcdefghijklmnopqrstu',
  'correct horse battery staple',
  '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
];

export const CURL_COMMANDS = `curl -s -X POST https://api.github.com/repos/o/r/issues -H "Authorization: token ghp_AAAAbbbbCCCCdddd1111222233334444eeee" -H 'Content-Type: application/json' -d '{"title":"x"}'
curl -u deploy:Tr0ub4dor&3 https://artifacts.example.com/upload
curl --user=ci:hunter2hunter2 https://nexus.example.com/repo
curl -H "X-Api-Key: k3y-7f8a9b0c1d2e" https://api.example.com/v1/things
curl --cookie "sessionid=8c1f0e2a9b; csrftoken=Zx9Yw8Vu7" https://app.example.com/
curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U' https://api.example.com/me`;

export const CURL_SECRETS = [
  'ghp_AAAAbbbbCCCCdddd1111222233334444eeee',
  'Tr0ub4dor&3',
  'hunter2hunter2',
  'k3y-7f8a9b0c1d2e',
  '8c1f0e2a9b',
  'Zx9Yw8Vu7',
  'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
];

export const NPMRC = `registry=https://registry.npmjs.org/
//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789
//npm.pkg.github.com/:_authToken=0123456789abcdef0123456789abcdef01234567
_auth=dXNlcjpwYXNzd29yZA==
always-auth=true
`;

export const DOCKER_CONFIG = `{
  "auths": {
    "https://index.docker.io/v1/": { "auth": "ZG9ja2VydXNlcjpkb2NrZXJwYXNz" },
    "ghcr.io": { "auth": "Z2hjcnVzZXI6Z2hwX3NlY3JldA==", "identitytoken": "4f1a2b3c-refresh-token-value" }
  },
  "credsStore": "desktop"
}`;

export const CONNECTION_STRINGS = [
  ['postgres://u:p4ssw0rd@h/db', 'p4ssw0rd'],
  ['mongodb+srv://admin:pa55w0rd@cluster0.mongodb.net/db?retryWrites=true', 'pa55w0rd'],
  ['mysql://root:t00r@localhost:3306/app', 't00r'],
  ['amqp://guest:gu3st-pw@rabbit:5672/', 'gu3st-pw'],
  ['redis://:s3cr3tRedis@cache:6379/0', 's3cr3tRedis'],
  ['https://oauth2:glpat-AbCdEf123456@gitlab.com/g/p.git', 'glpat-AbCdEf123456'],
] as const;

/** Ordinary text and config that must come out unchanged. */
export const ORDINARY_TEXT = [
  'PORT=3000',
  'REACT_VERSION=18',
  'MONKEY_BARS=1',
  'KEYBOARD=us',
  'MAX_TOKENS=4096 TOKEN_LIMIT=100 PASSWORD_MIN_LENGTH=12',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b',
  'digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'request id 123e4567-e89b-12d3-a456-426614174000',
  'The token expired, so the client asked for a new token.',
  'Keep the secret recipe secret; the key to success is practice.',
  'loading tokenizer from ./tokenizer.json; npm install tokenizers',
  'Bearer authentication is required for this endpoint',
  'the Authorization header was missing',
  'open http://localhost:3000/path and git@github.com:org/repo.git',
  'docker run -u 1000:1000 image; git push -u origin main; git checkout -b feature/x',
  'const apiKey = process.env.API_KEY;',
  'if (token == null) return;',
  'password reset email sent to the user',
  'ssh-keygen -t ed25519 -C "me@example.com"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, not a template
  'PASSWORD=${DB_PASSWORD}',
  'always-auth=true',
  'key_count: 3',
  'mkdir -p build/out && docker run -p 8080:80 -p 443:443 nginx',
  'ssh -p 2222 me@host; scp -P 2222 a b',
  'gh auth login --with-token < token.txt; cli --token-file ./secrets/token --api-key-file key.txt',
  'docker login --password-stdin registry.example.com',
  'redis-cli -n 2 ping',
  'see https://example.com/docs?page=2&sort=asc and git@github.com:org/repo.git',
  'node --max-old-space-size=4096 --password-policy strict',
  // -b is a cookie flag for curl only; elsewhere `name=value` after it is a branch, a key, a file.
  'git checkout -b feature=x origin/main',
  'git branch -b release=2.0; sort -b col=2 data.txt',
  'cd repo && git checkout -b fix/a=b',
  // -u/--user with user:group is a uid:gid for the container tools.
  'docker run -u app:app --rm node:20 npm test',
  'sudo docker exec -u www-data:www-data web ls',
  'podman run --user 1000:staff alpine id; nerdctl run -u app:app x',
  'buildah run --user=root:root c -- ls && finch run -u node:node img',
  'docker compose run -u app:app api',
];
