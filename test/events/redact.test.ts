// spec: docs/architecture.md item 3 and its validation rows "Secrets redacted…", "Redaction is
// conservative (prose/config untouched)", "Redaction covers realistic env/curl/cloud/
// connection-string shapes", "A PEM block, a multi-line .env paste and {"password":"…"}… are absent".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/events/redact.js';
import {
  anyText,
  CONNECTION_STRINGS,
  CURL_COMMANDS,
  CURL_SECRETS,
  DOCKER_CONFIG,
  ENV_FILE,
  ENV_FILE_SECRETS,
  NPMRC,
  ORDINARY_TEXT,
  SECRET_FAMILIES,
} from './secret-fixtures.js';

function expectHidden(output: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(output, `leaked ${secret}`).not.toContain(secret);
}

describe('redactSecrets — credential families', () => {
  const cases: [string, string, string, string][] = [
    // [family, input, secret that must vanish, text that must remain]
    [
      'slack bot',
      'token xoxb-1234567890-0987654321-AbCdEfGhIjKl',
      'AbCdEfGhIjKl',
      'token [REDACTED:slack-token]',
    ],
    ['slack user', 'xoxp-1234567890-abcdefghijkl', 'abcdefghijkl', '[REDACTED:slack-token]'],
    ['slack app', 'xapp-1-A0123456789-abcdef012345', 'abcdef012345', '[REDACTED:slack-token]'],
    [
      'slack webhook',
      'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      'XXXXXXXXXXXXXXXXXXXXXXXX',
      'https://hooks.slack.com/services/[REDACTED:slack-webhook]',
    ],
    ['github ghp_', 'ghp_1234567890abcdefghijABCDEFGHIJ123456', 'ghp_1234567890', '[REDACTED:github-token]'],
    ['github gho_', 'gho_1234567890abcdefghijABCDEFGHIJ123456', 'gho_1234567890', '[REDACTED:github-token]'],
    ['github ghs_', 'ghs_1234567890abcdefghijABCDEFGHIJ123456', 'ghs_1234567890', '[REDACTED:github-token]'],
    ['github ghu_', 'ghu_1234567890abcdefghijABCDEFGHIJ123456', 'ghu_1234567890', '[REDACTED:github-token]'],
    [
      'github_pat_',
      'github_pat_11ABCDEFG0_abcdefghijklmnopqrstuvwxyz0123456789',
      'abcdefghijklmnop',
      '[REDACTED:github-token]',
    ],
    [
      'x-access-token in a URL',
      'https://x-access-token:v1.abcdef0123456789@github.com/o/r.git',
      'v1.abcdef0123456789',
      'https://x-access-token:[REDACTED]@github.com/o/r.git',
    ],
    [
      'x-access-token without a scheme',
      'remote x-access-token:abcdef0123456789@github.com',
      'abcdef0123456789',
      'x-access-token:[REDACTED]@github.com',
    ],
    [
      'anthropic',
      'key sk-ant-api03-AbCdEf0123456789_GhIjKl-mnop',
      'AbCdEf0123456789',
      '[REDACTED:anthropic-key]',
    ],
    ['openai project', 'sk-proj-AbCdEf0123456789GhIjKlMnOp', 'AbCdEf0123456789', '[REDACTED:openai-key]'],
    ['openai', 'sk-AbCdEf0123456789GhIjKlMnOpQrStUvWx', 'AbCdEf0123456789', '[REDACTED:openai-key]'],
    ['aws AKIA', 'id AKIAIOSFODNN7EXAMPLE.', 'AKIAIOSFODNN7EXAMPLE', 'id [REDACTED:aws-access-key-id].'],
    ['aws ASIA', 'ASIAIOSFODNN7EXAMPLE', 'ASIAIOSFODNN7EXAMPLE', '[REDACTED:aws-access-key-id]'],
    ['gcp api key', 'key=AIzaSyA1234567890abcdefghijklmnopqrstu', 'SyA1234567890', '[REDACTED:gcp-api-key]'],
    [
      'gcp oauth',
      'ya29.a0AfH6SMBx0123456789abcdefghij',
      'a0AfH6SMBx0123456789',
      '[REDACTED:gcp-oauth-token]',
    ],
    ['stripe sk_live_', 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQr', '51H8xYzAbCdEf', '[REDACTED:stripe-key]'],
    ['stripe rk_live_', 'rk_live_51H8xYzAbCdEfGhIjKlMnOpQr', '51H8xYzAbCdEf', '[REDACTED:stripe-key]'],
    ['stripe whsec_', 'whsec_AbCdEf0123456789GhIjKlMnOpQr', 'AbCdEf0123456789', '[REDACTED:stripe-key]'],
    ['npm', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', 'abcdefghijklmnop', '[REDACTED:npm-token]'],
    [
      'jwt',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'dozjgNryP4J3jVmNHl0w5N',
      '[REDACTED:jwt]',
    ],
    [
      'discord bot token',
      'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs',
      'ZnCjm1XVW7vRze4b7Cq4se7kKWs',
      '[REDACTED:discord-token]',
    ],
    [
      'discord webhook',
      'https://discord.com/api/webhooks/123456789012345678/AbCdEf0123456789_GhIjKl-mnop',
      'AbCdEf0123456789',
      'discord.com/api/webhooks/123456789012345678/[REDACTED:discord-webhook]',
    ],
    [
      'Authorization: Bearer',
      'Authorization: Bearer abc.def-ghi_jkl',
      'abc.def-ghi_jkl',
      'Authorization: Bearer [REDACTED]',
    ],
    [
      'Authorization: Basic',
      'authorization: Basic dXNlcjpwYXNz',
      'dXNlcjpwYXNz',
      'authorization: Basic [REDACTED]',
    ],
    [
      'Authorization: token',
      'Authorization: token 0123abcd4567',
      '0123abcd4567',
      'Authorization: token [REDACTED]',
    ],
    ['Authorization: Bot', 'Authorization: Bot MTk4.Cl2.Zn', 'MTk4.Cl2.Zn', 'Authorization: Bot [REDACTED]'],
    [
      'Authorization in JSON',
      '{"Authorization": "Bearer abc123"}',
      'abc123',
      '{"Authorization": "Bearer [REDACTED]"}',
    ],
    ['bare Bearer token', 'sent Bearer 0123456789abcdefXYZ', '0123456789abcdefXYZ', 'sent Bearer [REDACTED]'],
    ['Cookie', 'Cookie: sid=abc123; theme=dark', 'abc123', 'Cookie: sid=[REDACTED]; theme=[REDACTED]'],
    [
      'Set-Cookie',
      'Set-Cookie: sid=s%3Aabc.def; Path=/; HttpOnly',
      's%3Aabc.def',
      'Set-Cookie: sid=[REDACTED]; Path=[REDACTED]; HttpOnly',
    ],
    ['curl -b', "curl -b 'sid=abc123' https://x", 'abc123', "curl -b 'sid=[REDACTED]' https://x"],
    ['url password', 'postgres://u:p4ss@h/db', 'p4ss', 'postgres://u:[REDACTED]@h/db'],
    ['curl -b bare', 'curl -s -b sid=abc123 https://x', 'abc123', 'curl -s -b sid=[REDACTED] https://x'],
    ['curl -b after a path', '/usr/bin/curl -b sid=abc123 x', 'abc123', '-b sid=[REDACTED] x'],
    [
      '-b cookie-shaped without curl',
      "http GET x -b 'sid=abc123; csrf=zz9'",
      'abc123',
      "-b 'sid=[REDACTED]; csrf=[REDACTED]'",
    ],
    ['--cookie without curl', 'wget --cookie sid=abc123 x', 'abc123', 'wget --cookie [REDACTED] x'],
    [
      'curl -u inside a container',
      'docker run --rm curlimages/curl curl -u admin:hunter2 https://x',
      'hunter2',
      'curl -u admin:[REDACTED] https://x',
    ],
    [
      'curl -u after a docker command on the same line',
      'docker run -u app:app img; curl --user admin:hunter2 https://x',
      'hunter2',
      'docker run -u app:app img; curl --user admin:[REDACTED]',
    ],
    ['curl -u', 'curl -u admin:hunter2 https://x', 'hunter2', 'curl -u admin:[REDACTED] https://x'],
    [
      'curl --user=',
      'curl --user=admin:hunter2 https://x',
      'hunter2',
      'curl --user=admin:[REDACTED] https://x',
    ],
    ['…SECRET=', 'CLIENT_SECRET=abc123def', 'abc123def', 'CLIENT_SECRET=[REDACTED]'],
    [
      '…_KEY=',
      'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG',
      'wJalrXUtnFEMI',
      'AWS_SECRET_ACCESS_KEY=[REDACTED]',
    ],
    ['…TOKEN=', 'HUBOT_TOKEN=abcd1234 ./run', 'abcd1234', 'HUBOT_TOKEN=[REDACTED] ./run'],
    ['PASSWORD=', 'PASSWORD=hunter2', 'hunter2', 'PASSWORD=[REDACTED]'],
    ['PASSWD', 'MYSQL_PASSWD=hunter2', 'hunter2', 'MYSQL_PASSWD=[REDACTED]'],
    ['PGPASSWORD', 'PGPASSWORD=hunter2 psql', 'hunter2', 'PGPASSWORD=[REDACTED] psql'],
    ['API_KEY', 'API_KEY=abcdef', 'abcdef', 'API_KEY=[REDACTED]'],
    [
      'ini with spaces',
      'aws_secret_access_key = wJalrXUtnFEMI',
      'wJalrXUtnFEMI',
      'aws_secret_access_key = [REDACTED]',
    ],
    ['query string', 'GET /cb?code=1&access_token=abc123&x=1', 'abc123', 'access_token=[REDACTED]&x=1'],
    ['yaml', 'db:\n  password: hunter2 again\n', 'hunter2', '  password: [REDACTED]\n'],
    ['yaml key', 'key: abc123', 'abc123', 'key: [REDACTED]'],
    ['yaml list item', '- api_key: abc123', 'abc123', '- api_key: [REDACTED]'],
    ['http header line', 'X-Auth-Token: abc123', 'abc123', 'X-Auth-Token: [REDACTED]'],
    ['header in curl -H', `curl -H 'Private-Token: abc123' x`, 'abc123', "'Private-Token: [REDACTED]'"],
    ['--token=', 'gh --token=abc123 x', 'abc123', 'gh --token=[REDACTED] x'],
    ['-D property', 'java -Dapi.key=abc123 -jar x', 'abc123', '-Dapi.key=[REDACTED] -jar'],
    ['json password', '{"password": "hunter2"}', 'hunter2', '{"password": "[REDACTED]"}'],
    ['json apiKey', '{"apiKey":"abc123"}', 'abc123', '{"apiKey":"[REDACTED]"}'],
    ['json client_secret', '{"client_secret": "abc123"}', 'abc123', '{"client_secret": "[REDACTED]"}'],
    ['json number value', '{"token": 123456, "n": 1}', '123456', '{"token": [REDACTED], "n": 1}'],
    ['python dict', "{'password': 'hunter2'}", 'hunter2', "{'password': '[REDACTED]'}"],
    ['js object', "{ password: 'hunter2' }", 'hunter2', "{ password: '[REDACTED]' }"],
    [
      'escaped json',
      String.raw`"{\"password\":\"hunter2\"}"`,
      'hunter2',
      String.raw`{\"password\":\"[REDACTED]\"}`,
    ],
    ['unclosed quote', 'password="hunter2 and more', 'hunter2', 'password="[REDACTED]'],
    [
      'alibaba LTAI',
      'id LTAI5tAbCdEfGhIjKlMnOpQr',
      '5tAbCdEfGhIjKlMnOpQr',
      'id [REDACTED:alibaba-access-key-id]',
    ],
    [
      'tencent AKID',
      'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE1',
      'z8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE1',
      '[REDACTED:tencent-secret-id]',
    ],
    [
      'aws id then its secret',
      'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'wJalrXUtnFEMI',
      '[REDACTED:aws-access-key-id] [REDACTED:aws-secret-access-key]',
    ],
    [
      'alibaba id, then its secret',
      'LTAI5tAbCdEfGhIjKlMnOpQr , "k8Jd9xLmQ2nRsT4vWyZ0aBcDeFgHiJ"',
      'k8Jd9xLmQ2nRsT4vWyZ0aBcDeFgHiJ',
      '[REDACTED:alibaba-access-key-id] , "[REDACTED:alibaba-access-key-secret]"',
    ],
    [
      'gcp hmac id: secret',
      'GOOG1EXAMPLEXAMPLEXAMPLEXAMPLEXAMPLEXAMPLE7ABCDEFGH: bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ',
      'bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ',
      '[REDACTED:gcp-hmac-access-id]: [REDACTED:gcp-hmac-secret]',
    ],
  ];

  it.each(cases)('%s', (_family, input, secret, kept) => {
    const output = redactSecrets(input);
    expect(output).not.toContain(secret);
    expect(output).toContain(kept);
  });

  it('keeps what follows a cloud access-key id when it is not shaped like its secret', () => {
    for (const after of [
      ' arn:aws:iam::123456789012:user/deploy',
      ' abcdefghijklmnopqrstuvwxyzabcdefgh (all lowercase)',
      ' short1Aa',
      '\nwJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY on the next line',
    ]) {
      expect(redactSecrets(`AKIAIOSFODNN7EXAMPLE${after}`)).toBe(`[REDACTED:aws-access-key-id]${after}`);
    }
  });

  it('reads the command of a -u or -b flag on its own line, at most 256 characters back', () => {
    const far = `docker run ${'-e A=1 '.repeat(40)}-u app:pw1 img`;
    expect(redactSecrets(far)).toContain('-u app:[REDACTED] img');
    expect(redactSecrets('docker build .\n-u app:pw1 x')).toBe('docker build .\n-u app:[REDACTED] x');
    expect(redactSecrets('curl -s x\ngit checkout -b a=b')).toBe('curl -s x\ngit checkout -b a=b');
    // The same text twice, and a shorter one after a longer one: each is read afresh.
    const text = 'docker run -u app:app x; curl -u admin:pw2 -b sid=abc123 y';
    const once = 'docker run -u app:app x; curl -u admin:[REDACTED] -b sid=[REDACTED] y';
    expect([redactSecrets(text), redactSecrets(text), redactSecrets('-u admin:pw3')]).toEqual([
      once,
      once,
      '-u admin:[REDACTED]',
    ]);
  });

  it('hides a whole PEM private key block, multi-line, keeping the text around it', () => {
    const pem = [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      'QyNTUxOQAAACDx4GoVIB+YVnW0mCqZ8S0QcJwPoH2IqHr8lRmT6QpvjQAAAJg5yVp0Ocla',
      '-----END OPENSSH PRIVATE KEY-----',
    ].join('\n');
    const output = redactSecrets(`before\n${pem}\nafter`);
    expect(output).toBe('before\n[REDACTED:private-key]\nafter');
  });

  it('hides PEM blocks written with JSON \\n escapes (a GCP service-account file)', () => {
    const json = JSON.stringify({
      type: 'service_account',
      private_key_id: 'abc123',
      private_key:
        '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n',
      client_email: 'bot@p.iam.gserviceaccount.com',
    });
    const output = redactSecrets(json);
    expect(output).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(output).toContain('"private_key":"[REDACTED:private-key]\\n"');
    expect(output).toContain('bot@p.iam.gserviceaccount.com');
  });

  it('hides everything after a PEM header that has no END line', () => {
    expect(redactSecrets('key:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\nmore')).toBe(
      'key:\n[REDACTED:private-key]',
    );
  });

  it('hides a base64-encoded private key (kubeconfig client-key-data) but not a certificate', () => {
    const key = Buffer.from('-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n').toString('base64');
    const cert = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIC\n').toString('base64');
    const yaml = `users:\n- name: admin\n  user:\n    client-certificate-data: ${cert}\n    client-key-data: ${key}\n`;
    const output = redactSecrets(yaml);
    expect(output).not.toContain(key);
    expect(output).toContain(cert);
    expect(output).toContain('client-key-data: [REDACTED:private-key]');
  });
});

describe('redactSecrets — realistic leaked payloads', () => {
  it('an .env file: every secret hidden, names and ordinary config kept', () => {
    const output = redactSecrets(ENV_FILE);
    expectHidden(output, ENV_FILE_SECRETS);
    expect(output).toContain('PORT=3000\nNODE_ENV=production\n');
    expect(output).toContain('SESSION_SECRET="[REDACTED]"');
    expect(output).toContain('DATABASE_URL=postgres://app:[REDACTED]@db.prod.internal:5432/app');
    expect(output.split('\n')).toHaveLength(ENV_FILE.split('\n').length);
  });

  it('curl commands: headers, -u, --user=, cookies and bearer tokens', () => {
    const output = redactSecrets(CURL_COMMANDS);
    expectHidden(output, CURL_SECRETS);
    expect(output).toContain('-H \'Content-Type: application/json\' -d \'{"title":"x"}\'');
    expect(output).toContain('curl -u deploy:[REDACTED] https://artifacts.example.com/upload');
  });

  it.each(CONNECTION_STRINGS)('connection string %s', (url, password) => {
    const output = redactSecrets(`connecting to ${url} ...`);
    expect(output).not.toContain(password);
    expect(output).toContain(url.replace(password, '[REDACTED]'));
  });

  it('.npmrc: _authToken and _auth hidden, always-auth=true kept', () => {
    const output = redactSecrets(NPMRC);
    expectHidden(output, [
      'abcdefghijklmnopqrstuvwxyz0123456789',
      '0123456789abcdef0123456789abcdef01234567',
      'dXNlcjpwYXNzd29yZA==',
    ]);
    expect(output).toContain('always-auth=true');
    expect(output).toContain('//npm.pkg.github.com/:_authToken=[REDACTED]');
  });

  it('docker config.json: auth and identitytoken hidden, credsStore kept', () => {
    const output = redactSecrets(DOCKER_CONFIG);
    expectHidden(output, [
      'ZG9ja2VydXNlcjpkb2NrZXJwYXNz',
      'Z2hjcnVzZXI6Z2hwX3NlY3JldA==',
      '4f1a2b3c-refresh',
    ]);
    expect(output).toContain('"credsStore": "desktop"');
    expect(output).toContain('"auth": "[REDACTED]"');
  });

  it('a 16 KB request with a PEM block, an .env paste and a JSON password inside', () => {
    const filler = 'Please look at the deploy logs below and tell me what failed.\n'.repeat(200);
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    const request = `${filler}${pem}\n${filler}${ENV_FILE}\n{"user":"bob","password":"pw-in-json-123"}\n${filler}`;
    const output = redactSecrets(request);
    expectHidden(output, ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'pw-in-json-123', ...ENV_FILE_SECRETS]);
    expect(output).toContain('"user":"bob"');
    expect(output).toContain(filler);
  });
});

describe('redactSecrets — conservative on ordinary text', () => {
  it.each(ORDINARY_TEXT)('leaves %j untouched', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('leaves an ordinary multi-line log untouched', () => {
    const log = ORDINARY_TEXT.join('\n');
    expect(redactSecrets(log)).toBe(log);
  });
});

describe('redactSecrets — properties', () => {
  it('is idempotent: redacting redacted text changes nothing', () => {
    fc.assert(
      fc.property(fc.string(), fc.oneof(...SECRET_FAMILIES), fc.string(), (before, placed, after) => {
        const once = redactSecrets(`${before} ${placed.text} ${after}`);
        expect(redactSecrets(once)).toBe(once);
      }),
    );
  });

  it('hides every sample of every family (CLI flags, vendor prefixes, URLs, connection strings)', () => {
    const leaked = SECRET_FAMILIES.flatMap((family) => fc.sample(family, 20))
      .filter((placed) => redactSecrets(`run: ${placed.text} done`).includes(placed.secret))
      .map((placed) => `${placed.family}: ${placed.text}`);
    expect([...new Set(leaked)]).toEqual([]);
  });

  it('hides every family wherever it sits in arbitrary text', () => {
    fc.assert(
      fc.property(anyText(), fc.oneof(...SECRET_FAMILIES), fc.string(), (before, placed, after) => {
        const output = redactSecrets(`${before} ${placed.text} ${after}`);
        expect(output, placed.family).not.toContain(placed.secret);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves prose alone: lowercase words, spaces, newlines and sentence punctuation come out unchanged', () => {
    const prose = fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz      \n.,!?'),
      maxLength: 400,
    });
    fc.assert(
      fc.property(prose, (text) => {
        expect(redactSecrets(text)).toBe(text);
      }),
    );
  });
});

describe('redactSecrets — 1 MB pathological inputs give the right output (timing is in bench/redact.bench.ts)', () => {
  const MB = 1_000_000;
  it.each([
    ['one long word', 'a'.repeat(MB), (out: string) => out === 'a'.repeat(MB)],
    ['sk- then "a-" runs', `sk-${'a-'.repeat(MB / 2)}`, (out: string) => out === '[REDACTED:openai-key]'],
    [
      'PEM header with no END',
      `x -----BEGIN PRIVATE KEY-----${'A'.repeat(MB)}`,
      (out: string) => out === 'x [REDACTED:private-key]',
    ],
    ['aaaa=aaaa=…', 'aaaa='.repeat(MB / 5), (out: string) => out === 'aaaa='.repeat(MB / 5)],
    ['token=token=…', 'token='.repeat(MB / 6), (out: string) => out === 'token=[REDACTED]'],
    ['x://a:a:…', `x://${'a:'.repeat(MB / 2)}`, (out: string) => out.length === MB + 4],
    ['many quotes', '"'.repeat(MB), (out: string) => out === '"'.repeat(MB)],
    [
      'already-hidden values, no spaces',
      'token=[REDACTED]'.repeat(MB / 16),
      (out: string) => out === 'token=[REDACTED]'.repeat(MB / 16),
    ],
    ['"password": "…', `"password": "${'x'.repeat(MB)}`, (out: string) => out === '"password": "[REDACTED]'],
  ] as const)('%s', (_name, input, check) => {
    expect(check(redactSecrets(input))).toBe(true);
  });
});
