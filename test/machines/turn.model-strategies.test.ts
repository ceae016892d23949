// spec: Actor-runtime item 7 — model-based tests of the turn machine with @xstate/graph, the
// condensing strategies with a tiny maxChars (test/machines/turn.model.test.ts runs the default
// settings and rollover on Discord: issue 24 item 4 split the runs so they balance over two workers): every state
// and every transition taken by some path (the test names any never taken), and on every path the
// turn keeps its promises: one notifying post per log message opened (buzzes = 1 + rollovers, and on a
// platform with silent posts a turn buzzes once; a proactive turn's header is one more), no call after
// `ended`, the terminal frame always sent, no entry lost (each entry is in some sent text or in the
// dead-letter record), none shown twice; a shutdown flush never ends the turn nor dead-letters, and
// sends what is pending; a proactive turn's header is its first post, top-level, its log in its thread.
// spec: gchat E2E 9 (rollover), 15 (degraded), 16 (edit fails twice), 17 (404 on edit) run on every path here.
import { describeModelRuns, strategyRun } from './turn.model.runs.js';

describeModelRuns([
  strategyRun('aggressive-truncate', 'gchat'),
  strategyRun('hybrid', 'gchat'),
  strategyRun('drop-earliest', 'gchat'),
]);
