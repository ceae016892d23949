// Issue 22.3: a command and its args are redacted as one command line, the array keeping its shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactArgv } from '../../src/events/command-line.js';
import { redactRunEvent } from '../../src/events/redact-event.js';
import type { RunEvent } from '../../src/events/schema.js';
import { redactRawText, scrubInput } from '../../src/events/scrub.js';
import { anyText, SECRET_FAMILIES } from './secret-fixtures.js';

const SPACE = 'gchat:spaces/AAAA';
const request = (command: string, args: string[]) => ({
  type: 'policy_request',
  space: SPACE,
  turnId: 'T1',
  requestId: 'r1',
  command,
  args,
});

/** The issue's four reproductions, with the command each flag belongs to. */
const ISSUE_CASES: { command: string; args: string[]; secret: string; kept: string[] }[] = [
  {
    command: 'deploy',
    args: ['--password', 'hunter2-Zebra!9'],
    secret: 'hunter2-Zebra!9',
    kept: ['--password'],
  },
  {
    command: 'mysql',
    args: ['-uroot', '-pOtherPw-77!', 'app'],
    secret: 'OtherPw-77!',
    kept: ['-uroot', 'app'],
  },
  {
    command: 'curl',
    args: ['-u', 'admin:FifthPw-22', 'https://x.example'],
    secret: 'FifthPw-22',
    kept: ['-u'],
  },
  {
    command: 'gh',
    args: ['secret', 'set', 'KEY', '--body', 'SixthPw-11'],
    secret: 'SixthPw-11',
    kept: ['secret', 'set', 'KEY', '--body'],
  },
];

describe('a policy_request command with its args (issue 22.3)', () => {
  for (const c of ISSUE_CASES) {
    it(`hides the secret of ${c.command} ${c.args.join(' ')} at ingest and keeps the args' shape`, () => {
      const scrubbed = scrubInput(JSON.stringify(request(c.command, c.args)));
      expect(scrubbed.ok).toBe(true);
      const value = (scrubbed as { value: { command: string; args: string[] } }).value;
      expect(JSON.stringify(value)).not.toContain(c.secret);
      expect(value.command).toBe(c.command);
      expect(value.args).toHaveLength(c.args.length);
      for (const word of c.kept) expect(value.args).toContain(word);
      const event = redactRunEvent(request(c.command, c.args) as unknown as RunEvent);
      expect(JSON.stringify(event)).not.toContain(c.secret);
    });
  }

  it('hides them in a line kept as a dead letter (not JSON)', () => {
    for (const c of ISSUE_CASES) {
      const cut = JSON.stringify(request(c.command, c.args)).slice(0, -1);
      expect(redactRawText(cut)).not.toContain(c.secret);
    }
  });

  it('hides them in a tool call input given as words, and in an argv array', () => {
    const input = scrubInput({ type: 'tool_call', input: { cmd: 'mysql', argv: ['-pOtherPw-77!'] } });
    expect(JSON.stringify(input)).not.toContain('OtherPw-77!');
    const words = scrubInput({ type: 'tool_call', input: { command: ['curl', '-u', 'admin:FifthPw-22'] } });
    expect(JSON.stringify(words)).not.toContain('FifthPw-22');
  });

  it('hides every argv family, whatever its secret', () => {
    const families = SECRET_FAMILIES.flatMap((f) => fc.sample(f, 10)).filter((p) => p.argv !== undefined);
    expect(families.length).toBeGreaterThanOrEqual(60);
    for (const p of families) {
      const [command = '', ...args] = p.argv ?? [];
      const out = redactArgv(p.argv ?? []);
      expect(out, p.family).toHaveLength(args.length + 1);
      expect(out.join(' '), p.family).not.toContain(p.secret);
      expect(out[0], p.family).toBe(command);
    }
  });

  it('keeps ordinary args as they are, and a URL after a hidden header value', () => {
    expect(redactArgv(['git', 'push', '-u', 'origin', 'main'])).toEqual([
      'git',
      'push',
      '-u',
      'origin',
      'main',
    ]);
    expect(redactArgv(['docker', 'run', '-u', '1000:1000', 'img'])).toEqual([
      'docker',
      'run',
      '-u',
      '1000:1000',
      'img',
    ]);
    expect(redactArgv(['curl', '-H', 'Authorization: Bearer abcdef0123456789', 'https://x.example'])).toEqual(
      ['curl', '-H', 'Authorization: Bearer [REDACTED]', 'https://x.example'],
    );
  });

  it('property: any words, secrets among them, keep their count and lose their secrets', () => {
    fc.assert(
      fc.property(
        fc.array(anyText(30), { maxLength: 8 }),
        fc.oneof(...SECRET_FAMILIES.slice(-20)),
        fc.nat(8),
        (words, placed, at) => {
          const argv = placed.argv ?? [placed.text];
          const all = [...words.slice(0, at), ...argv, ...words.slice(at)];
          const out = redactArgv(all);
          expect(out).toHaveLength(all.length);
          if (!words.join('\t').includes(placed.secret)) expect(out.join('\t')).not.toContain(placed.secret);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the shape when a hidden value ran over a separator', () => {
    const out = redactArgv(['curl', '--cookie', 'a=1; b=2', 'x\ty', 'z']);
    expect(out).toHaveLength(5);
    expect(out[0]).toBe('curl');
    expect(out[4]).toBe('z');
  });
});
