/**
 * The demo's bundled scenario: two concurrent turns in one Google Chat space,
 * one Slack turn and one Discord turn beside them, as an agent host would
 * stream them. Turn A reads and greps in bursts
 * (~40 tool calls), runs a 2-level subagent tree, asks for approval, prints
 * (a person presses Approve on the card, and the agent waits for that
 * decision from turnlog's actions), prints
 * an output long enough to roll the log over, leaks a secret in a tool
 * output (redacted before it reaches the platform) and answers. Turn B is a
 * short turn running alongside it. Turns C (Slack) and D (Discord) each read,
 * run a command whose output carries the same secret, and answer; the Slack
 * turn adopts the person's follow-up (`messages_adopted`). Every person's
 * message gets 👀, then ✅ (`visibility.reactions`).
 *
 * Deterministic: the same steps every run. A step is a batch of events sent
 * together, then a pause (scaled by the demo's `--speed`).
 */

export interface ScenarioStep {
  /** What the step shows, for the progress line. */
  label: string;
  events: Record<string, unknown>[];
  /**
   * After the events: a person presses this button on the card of `requestId`
   * (through the emulator, delivered to serve the platform's way), and the
   * scripted agent waits for the decision on `GET /v1/actions`; the agent's
   * later `policy_decision` for it says what came back.
   */
  approval?: { platform: DemoPlatformId; requestId: string; press: 'approve' | 'reject'; person: string };
  /** Pause after the step, at speed 1 (ms). */
  pauseMs: number;
}

/** The platforms the scenario plays on (a key of the serve config's `platforms`). */
export type DemoPlatformId = 'gchat' | 'slack' | 'discord';

export interface Scenario {
  /** turnlog's space id on each platform. */
  spaces: Record<DemoPlatformId, string>;
  /** The person's messages the turns hang off (posted through each platform's emulator first). */
  userMessages: { ref: string; text: string; platform: DemoPlatformId }[];
  /** Every event carries its `space`. */
  steps: ScenarioStep[];
  /** The secret planted in a tool output: the demo proves it never reached the platform. */
  plantedSecret: string;
  turnIds: string[];
}

const FILES = [
  'src/app.ts',
  'src/routes/index.ts',
  'src/routes/users.ts',
  'src/db/pool.ts',
  'src/db/migrations/001_init.sql',
  'src/lib/cache.ts',
  'src/lib/logger.ts',
  'test/app.test.ts',
  'package.json',
  'tsconfig.json',
];

export const DEMO_SPACES: Record<DemoPlatformId, string> = {
  gchat: 'gchat:spaces/DEMO',
  slack: 'slack:C0DEMOSLACK',
  discord: 'discord:1800000000000000042',
};

export function demoScenario(spaces: Record<DemoPlatformId, string> = DEMO_SPACES): Scenario {
  // A fake key with the shape of a real one: the redactor must catch it.
  const plantedSecret = `sk-ant-api03-${'Xq9'.repeat(12)}AbCdEf`;
  const A = 'turn-a';
  const B = 'turn-b';
  const C = 'turn-slack';
  const D = 'turn-discord';
  const platformOf: Record<string, DemoPlatformId> = {
    [A]: 'gchat',
    [B]: 'gchat',
    [C]: 'slack',
    [D]: 'discord',
  };
  const platformOfTurn = (turnId: string): DemoPlatformId => {
    const platform = platformOf[turnId];
    if (platform === undefined)
      throw new Error(`demo scenario: turn ${JSON.stringify(turnId)} has no platform`);
    return platform;
  };
  const envOutput = `DATABASE_URL=postgres://app:hunter2@db:5432/app\nANTHROPIC_API_KEY=${plantedSecret}\nPORT=3000`;
  const leak = (turnId: string) => [
    { type: 'tool_call', turnId, callId: `${turnId}-env`, tool: 'Bash', input: { command: 'cat .env' } },
    { type: 'tool_result', turnId, callId: `${turnId}-env`, tool: 'Bash', ok: true, output: envOutput },
  ];
  const tool = (turnId: string, n: number, name: string, input: Record<string, unknown>, extra = {}) => [
    { type: 'tool_call', turnId, callId: `${turnId}-c${n}`, tool: name, input, ...extra },
    {
      type: 'tool_result',
      turnId,
      callId: `${turnId}-c${n}`,
      tool: name,
      ok: true,
      output: `ok (${name} ${n})`,
      ...extra,
    },
  ];
  let n = 0;
  const readBurst = (turnId: string, files: string[], extra = {}) =>
    files.flatMap((path) => tool(turnId, n++, 'Read', { path }, extra));

  const longOutput = Array.from(
    { length: 60 },
    (_, i) => `  ✓ test ${String(i + 1).padStart(2, '0')} passes`,
  ).join('\n');

  const steps: ScenarioStep[] = [
    {
      label: 'four turns start (two in Google Chat, one in Slack, one in Discord)',
      events: [
        { type: 'turn_started', turnId: A, rootRef: 'msg-a' },
        { type: 'input', turnId: A, text: 'Why is the users endpoint slow? Fix it and run the tests.' },
        { type: 'turn_started', turnId: B, rootRef: 'msg-b' },
        { type: 'input', turnId: B, text: 'What does src/lib/cache.ts do?' },
        { type: 'turn_started', turnId: C, rootRef: 'msg-slack' },
        { type: 'input', turnId: C, text: 'Which logger do we use?' },
        { type: 'turn_started', turnId: D, rootRef: 'msg-discord' },
        { type: 'input', turnId: D, text: 'How is the database pool configured?' },
      ],
      pauseMs: 300,
    },
    {
      label: 'turn A reads the code (burst); the Slack and Discord turns read too',
      events: [
        ...readBurst(A, FILES.slice(0, 5)),
        ...readBurst(C, ['src/lib/logger.ts', 'package.json']),
        ...readBurst(D, ['src/db/pool.ts']),
      ],
      pauseMs: 400,
    },
    {
      label:
        'turn B reads one file; the Slack turn adopts a follow-up; Slack and Discord print a secret (redacted)',
      events: [
        ...readBurst(B, ['src/lib/cache.ts']),
        { type: 'messages_adopted', turnId: C, refs: ['msg-slack-2'] },
        ...leak(C),
        ...leak(D),
      ],
      pauseMs: 300,
    },
    {
      label: 'turn A greps',
      events: [
        ...tool(A, n++, 'Grep', { pattern: 'SELECT \\* FROM users' }),
        {
          type: 'assistant',
          turnId: A,
          text: 'The users route runs one query per user. Let me look deeper.',
        },
      ],
      pauseMs: 500,
    },
    {
      label: 'turn B answers and ends',
      events: [
        {
          type: 'answer',
          turnId: B,
          text: 'It is an LRU cache with a 5-minute TTL in front of the database pool.',
        },
        { type: 'turn_ended', turnId: B, outcome: 'ok' },
        ...tool(C, n++, 'Grep', { pattern: 'createLogger' }),
        ...tool(D, n++, 'Bash', { command: 'grep -n max src/db/pool.ts' }),
      ],
      pauseMs: 300,
    },
    {
      label: 'turn A starts a subagent, which starts another',
      events: [
        { type: 'subagent', turnId: A, subagentId: 'explore', status: 'started', name: 'Explore' },
        ...readBurst(A, FILES.slice(5, 8), { subagentId: 'explore' }),
        {
          type: 'subagent',
          turnId: A,
          subagentId: 'profile',
          parentSubagentId: 'explore',
          status: 'started',
          name: 'Profile',
        },
        ...tool(
          A,
          n++,
          'Bash',
          { command: 'npm run profile -- users' },
          { subagentId: 'profile', parentSubagentId: 'explore' },
        ),
        {
          type: 'subagent',
          turnId: A,
          subagentId: 'profile',
          parentSubagentId: 'explore',
          status: 'done',
          name: 'Profile',
        },
        { type: 'subagent', turnId: A, subagentId: 'explore', status: 'done', name: 'Explore' },
      ],
      pauseMs: 600,
    },
    {
      label: 'a tool output with a secret in it (redacted before it reaches the platform)',
      events: leak(A),
      pauseMs: 500,
    },
    {
      label: 'the Slack and Discord turns answer and end',
      events: [
        {
          type: 'answer',
          turnId: C,
          text: 'We use pino through src/lib/logger.ts, at level info by default.',
        },
        { type: 'turn_ended', turnId: C, outcome: 'ok' },
        {
          type: 'answer',
          turnId: D,
          text: 'src/db/pool.ts sets up pg with max 10 connections and a 30 s idle timeout.',
        },
        { type: 'turn_ended', turnId: D, outcome: 'ok' },
      ],
      pauseMs: 300,
    },
    {
      label: 'turn A asks for approval',
      events: [
        {
          type: 'policy_request',
          turnId: A,
          requestId: 'p1',
          command: 'psql',
          args: ['-c', 'CREATE INDEX users_team_idx ON users(team_id)'],
          title: 'Run a migration?',
        },
      ],
      approval: { platform: 'gchat', requestId: 'p1', press: 'approve', person: 'alice' },
      pauseMs: 800,
    },
    {
      label: 'approved; turn A edits and rebuilds (bursts)',
      events: [
        { type: 'policy_decision', turnId: A, requestId: 'p1', decision: 'approved', command: 'psql' },
        ...tool(A, n++, 'Edit', { file_path: 'src/routes/users.ts' }),
        ...tool(A, n++, 'Edit', { file_path: 'src/db/migrations/002_users_team_idx.sql' }),
        ...readBurst(A, FILES.slice(8)),
      ],
      pauseMs: 600,
    },
    ...[0, 1, 2].map((round) => ({
      label: `turn A iterates (round ${round + 1})`,
      events: [
        ...tool(A, n++, 'Bash', { command: 'npm run typecheck' }),
        ...readBurst(A, FILES.slice(round, round + 3)),
        ...tool(A, n++, 'Grep', { pattern: `team_id ${round}` }),
      ],
      pauseMs: 500,
    })),
    {
      label: 'the test run prints a long output (the log rolls over)',
      events: [
        { type: 'tool_call', turnId: A, callId: 'tests', tool: 'Bash', input: { command: 'npm test' } },
        { type: 'command', turnId: A, command: 'npm test', exitCode: 0, output: longOutput },
        {
          type: 'tool_result',
          turnId: A,
          callId: 'tests',
          tool: 'Bash',
          ok: true,
          exitCode: 0,
          output: longOutput,
        },
        ...readBurst(A, FILES.slice(0, 4)),
      ],
      pauseMs: 800,
    },
    {
      label: 'turn A answers and ends',
      events: [
        {
          type: 'answer',
          turnId: A,
          text: 'The users endpoint did one query per user (N+1). I batched it into one query and added an index on users.team_id; p95 went from 820 ms to 45 ms. Tests pass.',
        },
        { type: 'turn_ended', turnId: A, outcome: 'ok' },
      ],
      pauseMs: 0,
    },
  ];
  return {
    spaces,
    userMessages: [
      { ref: 'msg-a', text: 'Why is the users endpoint slow? Fix it and run the tests.', platform: 'gchat' },
      { ref: 'msg-b', text: 'What does src/lib/cache.ts do?', platform: 'gchat' },
      { ref: 'msg-slack', text: 'Which logger do we use?', platform: 'slack' },
      // A follow-up while the Slack turn works: the turn adopts it (issue 26).
      { ref: 'msg-slack-2', text: 'Also: does it log request ids?', platform: 'slack' },
      { ref: 'msg-discord', text: 'How is the database pool configured?', platform: 'discord' },
    ],
    // Each event names its space, from the platform its turn plays on.
    steps: steps.map((step) => ({
      ...step,
      events: step.events.map((e) => ({ space: spaces[platformOfTurn(String(e.turnId))], ...e })),
    })),
    plantedSecret,
    turnIds: [A, B, C, D],
  };
}
