// spec: issue 9 item 5 (close the families: password and token prompts of common CLIs) and
// docs/architecture.md item 3: the answer typed at an interactive prompt whose name says it
// is a credential (`aws configure`, `[default]:` prompts) is hidden; other answers stay.
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/events/redact.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY';

describe('redactSecrets on answers typed at a prompt', () => {
  it('hides the answer to `aws configure`-style prompts named as credentials, keeping the others', () => {
    const transcript = [
      '$ aws configure',
      'AWS Access Key ID [None]: AKIAIOSFODNN7EXAMPLE',
      `AWS Secret Access Key [None]: ${SECRET}`,
      'Default region name [None]: eu-west-1',
      'Default output format [None]: json',
    ].join('\n');
    const output = redactSecrets(transcript);
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(output).toContain('AWS Secret Access Key [None]: [REDACTED]');
    expect(output).toContain('Default region name [None]: eu-west-1');
    expect(output).toContain('Default output format [None]: json');
  });

  it('hides it whatever the default shown, with CRLF, indented, or as the last line', () => {
    for (const line of [
      `AWS Secret Access Key [****************ABCD]: ${SECRET}`,
      `  API token [none]: ${SECRET}\r\nnext`,
      `Password [ ]:${SECRET}`,
      `Client Secret [abc]:   ${SECRET}   `,
    ]) {
      expect(redactSecrets(`x\n${line}`)).not.toContain(SECRET);
    }
  });

  it('keeps prompts whose name is not a credential, and brackets in prose', () => {
    for (const text of [
      'Key pair name [default]: my-laptop',
      'Token limit [4096]: 8192',
      'Sort by [name]: date',
      'see [1]: the token docs',
      'Password file [~/.pgpass]: /etc/pgpass',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
