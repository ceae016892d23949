/**
 * Redaction stays linear: every pattern gets adversarial 1 MB inputs (long
 * runs with no terminator, repeated prefixes, unclosed quotes and blocks) and
 * is timed next to 1 MB of ordinary text in the same run. A catastrophic
 * pattern shows up as a ratio in the hundreds or thousands; a linear one stays
 * within a small factor of the baseline. The last column times the first half
 * of each input too: doubling the input about doubles the time when the work
 * is linear (≈2), and quadruples it when it is quadratic (≈4). The control row
 * is a trivially linear `/x/g` replace with as many matches as the busiest
 * cases: its numbers show what the machine and the engine add on their own.
 */
import { redactArgv } from '../src/events/command-line.js';
import { stripControl } from '../src/events/control.js';
import { redactSecrets } from '../src/events/redact.js';
import { prepareToolOutput, summarizeToolResult } from '../src/events/summaries.js';

const MB = 1_000_000;

function fill(unit: string, size = MB): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const ORDINARY_LINES = [
  'The build finished in 42s; 3 warnings were reported by the linter.',
  'PORT=3000 NODE_ENV=production REACT_VERSION=18 MONKEY_BARS=1',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main, origin/main)',
  'GET /api/v1/items?page=2&limit=50 200 12ms request_id=123e4567-e89b-12d3-a456-426614174000',
  '  at Object.<anonymous> (/srv/app/src/index.ts:12:5)',
  'const total = items.reduce((sum, item) => sum + item.price, 0);',
  'The token expired, so the client asked for a new one: see the tokenizer docs.',
  'digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
];
const ORDINARY = fill(`${ORDINARY_LINES.join('\n')}\n`);

const SECRET_DENSE = fill(
  [
    'DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app',
    'GITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456',
    'curl -u deploy:hunter2 -H "Authorization: Bearer abc.def.ghi" https://x',
    '{"password": "hunter2", "apiKey": "abc123"}',
    'AKIAIOSFODNN7EXAMPLE sk-ant-api03-AbCdEf1234567890-GhIjKlMnOp xoxb-1234567890-abcdefghij',
    '',
  ].join('\n'),
);

interface Case {
  name: string;
  input: string;
  run: (text: string) => unknown;
}

const redact = (name: string, input: string): Case => ({ name, input, run: redactSecrets });

const CASES: Case[] = [
  redact('baseline: ordinary text', ORDINARY),
  {
    name: 'control: "abcdx".replace(/x/g) (200k matches)',
    input: fill('abcdx'),
    run: (t) => t.replace(/x/g, ''),
  },
  redact('realistic: secret-dense config/curl/json', SECRET_DENSE),
  redact('"a" × 1M (one unbroken word)', 'a'.repeat(MB)),
  redact('spaces × 1M then "x"', `${' '.repeat(MB)}x`),
  redact('"sk-" + "a-" × 500k', `sk-${'a-'.repeat(MB / 2)}`),
  redact('"sk-a" × 250k', fill('sk-a')),
  redact('"ghp_" / "xoxb-" / "AKIA" repeated', fill('ghp_xoxb-AKIA')),
  redact('PEM header + "A" × 1M, no END', `-----BEGIN PRIVATE KEY-----${'A'.repeat(MB)}`),
  redact('PEM headers repeated, no END', fill('-----BEGIN RSA PRIVATE KEY-----\n')),
  redact('"-----BEGIN " + "A " repeated', `-----BEGIN ${fill('A ')}`),
  redact('base64 PEM prefix + "A" × 1M', `LS0tLS1CRUdJTi${'A'.repeat(MB)}`),
  redact('"aaaa=aaaa=…"', fill('aaaa=')),
  redact('"password= " repeated (empty values)', fill('password= ')),
  redact('"TOKEN" + "_A" × 500k (long name, no "=")', `TOKEN${fill('_A')}`),
  redact('"a:" × 500k', fill('a:')),
  redact('"x://" + "a:" × 500k', `x://${fill('a:')}`),
  redact('"x://a:" + "b" × 1M, no "@"', `x://a:${'b'.repeat(MB)}`),
  redact('"x://" repeated', fill('x://')),
  redact('"-u a:b " repeated', fill('-u a:b ')),
  redact('quotes × 1M', '"'.repeat(MB)),
  redact('"\\"" × 500k (escaped quotes)', fill('\\"')),
  redact('"\\"a\\":" repeated', fill('"a":')),
  redact('unclosed "password": " + "x" × 1M', `"password": "${'x'.repeat(MB)}`),
  redact('"password=\\"a " repeated (unclosed quotes)', fill('password="a ')),
  redact('"Authorization: " + spaces', `Authorization: ${' '.repeat(MB)}`),
  redact('"Authorization:" repeated', fill('Authorization:')),
  redact('"Cookie: " + "a=b;" repeated', `Cookie: ${fill('a=b;')}`),
  redact('"Bearer " + "a" × 1M (no digit)', `Bearer ${'a'.repeat(MB)}`),
  redact('"eyJ" + "a" × 1M (JWT without dots)', `eyJ${'a'.repeat(MB)}`),
  redact('"M" + "a" × 1M (Discord token without dots)', `M${'a'.repeat(MB)}`),
  redact('"\\n- key: " repeated (YAML)', fill('\n- key: ')),
  redact('"token=[REDACTED]" repeated (already hidden)', fill('token=[REDACTED]')),
  redact('"\\"token\\": \\"$X\\", " repeated (references)', fill('"token": "$X", ')),
  redact('"{{" + "a" × 1M after a secret name', `token={{${'a'.repeat(MB)}`),
  redact('"mysql " repeated (no -p)', fill('mysql ')),
  redact('"mysql -p" repeated', fill('mysql -p')),
  redact('"login " repeated (no -p)', fill('login ')),
  redact('"redis-cli -a " repeated', fill('redis-cli -a ')),
  redact('"--token " repeated', fill('--token ')),
  redact('"--password " + "a" × 1M', `--password ${'a'.repeat(MB)}`),
  redact('"SG." + "a" × 1M (one dot)', `SG.${'a'.repeat(MB)}`),
  redact('vendor prefixes repeated', fill('hf_dckr_pat_glpat-dop_v1_shpat_dapisk-')),
  redact('"x://" + "a1" × 500k, no "@"', `x://${fill('a1')}`),
  redact('"?sig=" repeated', fill('?sig=')),
  redact('"AC" + 32 hex repeated', fill('AC0123456789abcdef0123456789abcdef ')),
  redact('"pass:" repeated', fill('pass:')),
  redact('"bot123456789:AA" repeated', fill('bot123456789:AA')),
  // Issue 9 audit: the shapes added for more CLIs, setters, SQL, PuTTY, JWE and orphan key bodies.
  redact('"secret set x " repeated, "--body" at the end', `${fill('secret set x ')} --body`),
  redact('"config set --a " repeated', fill('config set --a ')),
  redact('"htpasswd -b " repeated', fill('htpasswd -b ')),
  redact('"mongosh " / "sqlcmd " / "ldapsearch " repeated (no flag)', fill('mongosh sqlcmd ldapsearch ')),
  redact('"PASSWORD \'" + "a" × 1M (unclosed)', `PASSWORD '${'a'.repeat(MB)}`),
  redact('"Private-Lines: 1\\n" repeated', fill('Private-Lines: 1\n')),
  redact('"eyJabcdefghij." repeated (JWE without its segments)', fill('eyJabcdefghij.')),
  redact('"abc8Q~" repeated (Azure secret prefix)', fill('abc8Q~')),
  redact(
    'base64 lines × 1M then a lone END',
    `${fill('A'.repeat(64).concat('\n'))}-----END PRIVATE KEY-----`,
  ),
  redact('"-----END PRIVATE KEY-----" repeated', fill('AAAA\n-----END PRIVATE KEY-----\n')),
  redact('"Password [x]: a" + spaces × 1M + "b"', `Password [x]: a${' '.repeat(MB)}b`),
  redact('"Token [" repeated (prompts with no "]:")', fill('Token [')),
  redact('"API key [x]: " repeated on one line', fill('API key [x]: ')),
  redact('key-width base64 lines × 1M (no BEGIN, no END)', fill('Ab1/'.repeat(16).concat('\n'))),
  redact('63-wide base64 lines × 1M (one short of a key line)', fill('Ab1'.repeat(21).concat('\n'))),
  redact('"x:" + key-width line repeated (tails that open no run)', fill(`x:${'Ab1/'.repeat(16)}\n\n`)),
  redact('"M" + base64 × 1M (one-line DER, not a key)', `M${'A'.repeat(MB)}`),
  redact('" MAAA…" × 80 repeated (one-line DER candidates)', fill(` M${'A'.repeat(80)}`)),
  // Cloud key ids and the secret after one; the flags that look back along their line (≤256 chars).
  redact(
    '"LTAI…" / "AKID…" ids repeated',
    fill('LTAI5tAbCdEfGhIjKlMnOpQr AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE1 '),
  ),
  redact('"AKIA… " + "aB1/" × 250k (secret with no end)', `AKIAIOSFODNN7EXAMPLE ${fill('aB1/')}`),
  redact('"AKIA… , " repeated (ids, no secrets)', fill('AKIAIOSFODNN7EXAMPLE , ')),
  redact('"-b a=b " repeated (no curl)', fill('-b a=b ')),
  redact('"curl -b a=b " repeated', fill('curl -b a=b ')),
  redact('"docker run -u a:b " repeated', fill('docker run -u a:b ')),
  // Issue 22: passwords typed as prose, and commands given as words (joined, redacted, split back).
  redact('"my password is " repeated (no value)', fill('my password is ')),
  redact('"pw: a1!" repeated (short values)', fill('pw: a1! ')),
  redact('"password is " + "a1" × 500k (one unbroken value)', `password is ${fill('a1')}`),
  {
    name: 'redactArgv: "-u" "a:b" words repeated',
    input: fill('-u a:b '),
    run: (t) => redactArgv(t.split(' ')),
  },
  {
    name: 'redactArgv: "-H" "Authorization: Bearer x" words repeated',
    input: fill('-H|Authorization: Bearer x1|'),
    run: (t) => redactArgv(t.split('|')),
  },
  { name: 'stripControl: baseline', input: ORDINARY, run: stripControl },
  { name: 'stripControl: "\\x1b[" + "0;" × 500k', input: `\x1b[${fill('0;')}`, run: stripControl },
  { name: 'stripControl: "\\x1b]" repeated (unclosed OSC)', input: fill('\x1b]0;t'), run: stripControl },
  { name: 'summarizeToolResult: baseline', input: ORDINARY, run: summarizeToolResult },
  { name: 'prepareToolOutput: baseline', input: ORDINARY, run: prepareToolOutput },
];

function timeMs(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** The fastest of five runs: on a shared machine, the run least disturbed by other work. */
function bestMs(c: Case, input: string): number {
  return Math.min(...[0, 1, 2, 3, 4].map(() => timeMs(() => c.run(input))));
}

export default async function run(): Promise<void> {
  const rows: { name: string; msPerMb: number; growth: number }[] = [];
  for (const c of CASES) {
    c.run(c.input); // warm-up: JIT and regex compilation
    const full = bestMs(c, c.input);
    const half = bestMs(c, c.input.slice(0, c.input.length / 2));
    rows.push({ name: c.name, msPerMb: full / (c.input.length / MB), growth: full / Math.max(half, 0.01) });
  }
  const baseline = rows[0]?.msPerMb ?? 1;
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`${'input (1 MB each)'.padEnd(width)} |   ms/MB | × baseline | t(1 MB)/t(0.5 MB)`);
  console.log(`${'-'.repeat(width)}-|---------|------------|------------------`);
  for (const r of rows) {
    const cells = [
      r.msPerMb.toFixed(1).padStart(7),
      (r.msPerMb / baseline).toFixed(2).padStart(10),
      r.growth.toFixed(2).padStart(17),
    ];
    console.log(`${r.name.padEnd(width)} | ${cells.join(' | ')}`);
  }
  const worst = rows.slice(1).reduce((a, b) => (b.msPerMb > a.msPerMb ? b : a));
  console.log(
    `\nworst: ${worst.name} at ${(worst.msPerMb / baseline).toFixed(2)}× the ordinary-text baseline`,
  );
}
