// spec: docs/architecture.md item 1 and validation row "parseExitPrefix: numeric / errno / clean /
// mid-text mention / leading escape or whitespace".
import { describe, expect, it } from 'vitest';
import { parseExitPrefix } from '../../src/events/exit-prefix.js';

describe('parseExitPrefix', () => {
  it('numeric: `exit 2:` gives the code and marks it failed', () => {
    expect(parseExitPrefix('exit 2: grep found nothing')).toEqual({ exitCode: 2, failed: true });
    expect(parseExitPrefix('exit 127:\nbash: foo: command not found')).toEqual({
      exitCode: 127,
      failed: true,
    });
  });

  it('`exit 0:` is a clean run', () => {
    expect(parseExitPrefix('exit 0: ok')).toEqual({ exitCode: 0, failed: false });
  });

  it('negative codes are read', () => {
    expect(parseExitPrefix('exit -1: killed')).toEqual({ exitCode: -1, failed: true });
  });

  it('errno / signal: failed with no code', () => {
    expect(parseExitPrefix('exit ENOENT: spawn foo ENOENT')).toEqual({ failed: true });
    expect(parseExitPrefix('exit SIGKILL: out of memory')).toEqual({ failed: true });
  });

  it('clean: output without the prefix is a clean 0', () => {
    expect(parseExitPrefix('total 12\ndrwxr-xr-x 2 me me 4096 .')).toEqual({ exitCode: 0, failed: false });
    expect(parseExitPrefix('')).toEqual({ exitCode: 0, failed: false });
  });

  it('mid-text mention: output that mentions "exit 1:" later is a clean 0', () => {
    expect(parseExitPrefix('running tests\nexit 1: would be bad\n')).toEqual({ exitCode: 0, failed: false });
    expect(parseExitPrefix('the script calls exit 1: on error')).toEqual({ exitCode: 0, failed: false });
  });

  it('leading whitespace or ANSI escapes are tolerated', () => {
    expect(parseExitPrefix('  \n exit 3: x')).toEqual({ exitCode: 3, failed: true });
    expect(parseExitPrefix('\x1b[31m\x1b[1mexit 1: red')).toEqual({ exitCode: 1, failed: true });
  });

  it('near misses are not the prefix', () => {
    expect(parseExitPrefix('exit 1 without colon')).toEqual({ exitCode: 0, failed: false });
    expect(parseExitPrefix('exited 1: no')).toEqual({ exitCode: 0, failed: false });
    expect(parseExitPrefix('exit status: 0')).toEqual({ exitCode: 0, failed: false });
    expect(parseExitPrefix('Exit 1: capitalised')).toEqual({ exitCode: 0, failed: false });
  });
});
