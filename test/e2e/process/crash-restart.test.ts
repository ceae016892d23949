/**
 * Restart recovery with a real process (issue "turnlog serve and the demo",
 * item 4): `turnlog serve` against the Google Chat emulator on a SQLite file;
 * half a turn; `kill -9`; serve again on the same database; the rest of the
 * turn. The same log message keeps being edited, no duplicate log message,
 * no lost entry — asserted on the emulator's own calls and messages
 * (crash-restart.scenario.ts; postgres-crash-restart.test.ts runs it on Postgres).
 */
import { afterEach, describe, it } from 'vitest';
import { killNineAndRestart } from './crash-restart.scenario.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('serve: kill -9 mid-turn and restart on the same database', () => {
  it('keeps editing the same log message, with no duplicate and no lost entry', async () => {
    await killNineAndRestart(cleanups);
  }, 90_000);
});
