/**
 * Notifications an agent turn costs on Google Chat at default settings:
 * a lone 200-event turn, and 10 such turns one after another in one space
 * (generated traces, bench/traces/agent-trace.ts; simulated clock). Also
 * the writes they took, and whether every tool call is still visible in
 * its thread. test/bench/notifications.test.ts holds the goals.
 */
import { agentTurn, turnsInOneSpace } from './traces/agent-trace.js';
import { countNotifications } from './traces/notifications.js';

const SPACE = 'gchat:spaces/BENCH';
const SEEDS = [1, 2, 3];

export default async function run(): Promise<void> {
  console.log(
    '| scenario | seed | turns | notifications/turn | log messages/turn | writes/turn | invisible calls | pending at end | refusals |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const seed of SEEDS) {
    const scenarios = [
      ['1 turn, 200 events', agentTurn({ space: SPACE, turnId: 'T0', rootId: 'u0', seed })],
      ['10 turns in one space', turnsInOneSpace({ space: SPACE, count: 10, seed })],
    ] as const;
    for (const [name, trace] of scenarios) {
      const r = await countNotifications(trace);
      console.log(
        `| ${name} | ${seed} | ${r.turns} | ${(r.notifications / r.turns).toFixed(2)} | ${(r.logNotifications / r.turns).toFixed(2)} | ${(r.writes / r.turns).toFixed(1)} | ${r.invisibleCalls.length} | ${r.pendingAtEnd} | ${r.refusals} |`,
      );
    }
  }
}
