// spec: docs/emulators.md "POST /_emulator/faults" rule matching (op, method, path substring or /regex/, times).
import { describe, expect, it } from 'vitest';
import { createFaultInjector, pathMatches } from '../../../src/emulators/core/index.js';

describe('pathMatches', () => {
  it('treats ordinary paths as substrings and /…/flags as regexes', () => {
    expect(pathMatches('/v1/spaces/A', '/v1/spaces/A/messages/m1')).toBe(true);
    expect(pathMatches('/v1/spaces/B', '/v1/spaces/A/messages/m1')).toBe(false);
    expect(pathMatches('chat.update', '/api/chat.update')).toBe(true);
    expect(pathMatches('/messages\\/m\\d+$/', '/v1/spaces/A/messages/m12')).toBe(true);
    expect(pathMatches('/messages\\/m\\d+$/', '/v1/spaces/A/messages/m12/reactions')).toBe(false);
    expect(pathMatches('/CHAT/i', '/api/chat.postMessage')).toBe(true);
  });
});

describe('createFaultInjector', () => {
  const update = { op: 'update' as const, method: 'PATCH', path: '/v1/spaces/A/messages/m1' };

  it('answers with the first matching rule, counting `times` down and then dropping it', () => {
    const faults = createFaultInjector();
    faults.add([
      { op: 'update', status: 404, times: 1 },
      { method: 'patch', status: 500, times: 2 },
    ]);
    expect(faults.take(update)?.status).toBe(404);
    expect(faults.list()).toEqual([{ method: 'patch', status: 500, times: 2 }]);
    expect(faults.take(update)?.status).toBe(500);
    expect(faults.take(update)?.status).toBe(500);
    expect(faults.take(update)).toBeNull();
  });

  it('a rule without `times` fails every matching call; non-matching calls pass', () => {
    const faults = createFaultInjector();
    faults.add([{ op: 'create', status: 429, retryAfterS: 2 }]);
    for (let i = 0; i < 3; i++) {
      expect(faults.take({ op: 'create', method: 'POST', path: '/x' })).toEqual({
        op: 'create',
        status: 429,
        retryAfterS: 2,
      });
    }
    expect(faults.take(update)).toBeNull();
  });

  it('rejects a bad rule, naming the field, and keeps the rules already in force', () => {
    const faults = createFaultInjector();
    faults.add([{ status: 500, times: 1 }]);
    expect(() => faults.add([{ status: 500 }, { op: 'edit', status: 500 }])).toThrow(
      /^bad fault rule: rules\[1\]\.op: /,
    );
    expect(() => faults.add([{ status: 500, times: 0 }])).toThrow(/rules\[0\]\.times/);
    expect(faults.list()).toEqual([{ status: 500, times: 1 }]);
  });
});
