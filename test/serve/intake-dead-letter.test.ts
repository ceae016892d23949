/**
 * spec: docs/http-api.md "Platform intake" — what an intake could not take is
 * stored by serve as a dead letter with source `intake:<platform>`, its reason
 * and payload redacted (issue 9: secrets never reach disk), the payload capped
 * at INTAKE_DEAD_LETTER_CHARS, and a store that fails is logged, never thrown
 * at the intake (which still has to answer the platform).
 */
import { describe, expect, it, vi } from 'vitest';
import { INTAKE_DEAD_LETTER_CHARS, intakeDeadLetter } from '../../src/serve/surfaces.js';
import type { DeadLetterRecord } from '../../src/store/store.js';

const LEAKED = 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';

function rig(keep?: (record: DeadLetterRecord) => void | Promise<void>) {
  const kept: DeadLetterRecord[] = [];
  const warnings: string[] = [];
  const deadLetter = intakeDeadLetter('slack', keep ?? ((record) => void kept.push(record)), {
    now: () => 1_700_000_000_000,
    logger: {
      info: () => {},
      warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    },
  });
  return { deadLetter, kept, warnings };
}

describe('intakeDeadLetter', () => {
  it('stores reason and payload redacted, with source intake:<platform> and the clock', () => {
    const { deadLetter, kept } = rig();
    deadLetter(
      `a body with ${LEAKED} in its error`,
      `{"token":"${LEAKED}","text":"Authorization: Bearer ${LEAKED}"}`,
    );
    expect(kept).toEqual([
      {
        at: 1_700_000_000_000,
        source: 'intake:slack',
        reason: expect.any(String),
        payload: expect.any(String),
      },
    ]);
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
    expect(kept[0]?.payload).toContain('[REDACTED');
    expect(kept[0]?.reason).toContain('[REDACTED');
  });

  it('caps a long payload and says so in the reason', () => {
    const { deadLetter, kept } = rig();
    deadLetter('too much', 'x'.repeat(INTAKE_DEAD_LETTER_CHARS + 10));
    expect(kept[0]?.payload).toHaveLength(INTAKE_DEAD_LETTER_CHARS);
    expect(kept[0]?.reason).toBe(`too much; first ${INTAKE_DEAD_LETTER_CHARS} characters kept`);
  });

  it('a store that throws or rejects is logged, not thrown at the intake', async () => {
    const throwing = rig(() => {
      throw new Error('disk full');
    });
    expect(() => throwing.deadLetter('bad', '{}')).not.toThrow();
    expect(throwing.warnings.join('\n')).toMatch(/slack intake: storing a dead letter failed .*disk full/);
    const rejecting = rig(() => Promise.reject(new Error('database is locked')));
    rejecting.deadLetter('bad', '{}');
    await vi.waitFor(() => expect(rejecting.warnings.join('\n')).toMatch(/database is locked/));
  });
});
