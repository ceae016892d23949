/**
 * Issue 23 items 2, 3, 4 and 6 (docs/http-api.md (several instances)): several `turnlog serve`
 * processes on one real Postgres (test/cluster/servers.ts) and the Slack
 * emulator, with a short lease (1500 ms).
 *
 * - 23.2/23.3/23.6: events of one turn sent to either process at random land as
 *   one log message per turn, every line once, in order, one answer; each
 *   space has one owner (/healthz `cluster.owns`), and any process answers
 *   GET /v1/turns/:id.
 * - 23.4: kill -9 of the owner of a live turn: the other takes the lease,
 *   restores the turn and goes on editing the same message (no second log,
 *   no lost line), the answer lands once.
 * - 23.2/23.4: the owner paused (SIGSTOP) past its lease, then resumed
 *   (SIGCONT): it stands down and writes nothing (no edit without the lines
 *   its successor added).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SlackEmulator, startSlackEmulator } from '../../src/emulators/slack/index.js';
import {
  type ClusterNode,
  clusterConfigFile,
  health,
  kill9,
  ownerOf,
  postEvents,
  startNode,
} from './cluster-nodes.js';
import { type RunningPostgres, type RunningServer, startPostgres, startRedis } from './servers.js';

const cleanups: (() => Promise<void> | void)[] = [];
let pg: RunningPostgres;
let redis: RunningServer;
let emulator: SlackEmulator;
let databases = 0;

beforeAll(async () => {
  pg = await startPostgres();
  redis = await startRedis();
}, 120_000);
afterAll(async () => {
  await redis?.stop();
  await pg?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh database per test (the same server). */
async function freshDatabase(): Promise<string> {
  const name = `cluster_${++databases}_${process.pid}`;
  const { default: pgClient } = await import('pg');
  const client = new pgClient.Client({ connectionString: pg.url });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return pg.urlFor(name);
}

async function startCluster(count: number): Promise<ClusterNode[]> {
  emulator = await startSlackEmulator({ limits: [] });
  cleanups.push(() => emulator.close());
  const config = clusterConfigFile(
    await freshDatabase(),
    { slack: { apiUrl: emulator.url, token: 'xoxb-cluster' } },
    cleanups,
    { redisUrl: redis.url },
  );
  return Promise.all(Array.from({ length: count }, (_, i) => startNode(`node${i + 1}`, config, cleanups)));
}

const WAIT = { timeout: 30_000, interval: 100 };
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

/** The channel's messages holding any `line-` (the turn's log), and those holding the answer. */
function shown(channel: string, answer: string) {
  const messages = emulator.state.messages(channel).filter((m) => !m.deleted);
  return {
    logs: messages.filter((m) => /line-\d+/.test(m.text ?? '')),
    answers: messages.filter((m) => (m.text ?? '').includes(answer)),
  };
}

/** Lines numbered `from`..`to` in the text, in order of appearance. */
const linesIn = (text: string) => [...text.matchAll(/line-(\d+)/g)].map((m) => Number(m[1]));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function logCreates(channel: string): number {
  return emulator.state
    .calls()
    .filter((c) => c.op === 'create' && c.space === channel && /line-\d+/.test(c.text ?? '')).length;
}

describe('cluster: two processes, one Postgres', () => {
  it('takes any event on any process: one log per turn, every line in order, one answer (23.2, 23.3)', async () => {
    const nodes = await startCluster(2);
    const channels = ['C0CLUSTA1', 'C0CLUSTB2', 'C0CLUSTC3'];
    // Sent one request after the other to processes at random: applied in the order sent.
    for (const channel of channels) {
      expect(
        await postEvents(pick(nodes), [
          { space: `slack:${channel}`, type: 'turn_started', turnId: `T-${channel}` },
        ]),
      ).toBe(202);
    }
    for (let line = 1; line <= 12; line++) {
      for (const channel of channels) {
        const status = await postEvents(pick(nodes), [
          { space: `slack:${channel}`, type: 'note', turnId: `T-${channel}`, text: `line-${line}` },
        ]);
        expect(status).toBe(202);
      }
    }
    for (const channel of channels) {
      await postEvents(pick(nodes), [
        { space: `slack:${channel}`, type: 'answer', turnId: `T-${channel}`, text: `ANSWER-${channel}` },
        { space: `slack:${channel}`, type: 'turn_ended', turnId: `T-${channel}`, outcome: 'ok' },
      ]);
    }
    for (const channel of channels) {
      await vi.waitFor(() => {
        const { logs, answers } = shown(channel, `ANSWER-${channel}`);
        expect(logs).toHaveLength(1);
        expect(linesIn(logs[0]?.text ?? '')).toEqual(range(1, 12));
        expect(answers).toHaveLength(1);
      }, WAIT);
      expect(logCreates(channel)).toBe(1);
    }
    // Every space has exactly one owner, and both processes answer for any turn.
    const bodies = await Promise.all(nodes.map(health));
    const owned = bodies.flatMap((b) => b.cluster?.owns ?? []);
    expect(owned.sort()).toEqual(channels.map((c) => `slack:${c}`).sort());
    expect(new Set(bodies.map((b) => b.cluster?.instanceId)).size).toBe(2);
    expect(bodies.every((b) => b.cluster?.store === 'ok')).toBe(true);
    // One app budget shared through Redis (issue 23.5), one per process.
    expect(bodies.every((b) => b.cluster?.budget === 'shared')).toBe(true);
    for (const node of nodes) {
      const turn = await vi.waitFor(async () => {
        const response = await fetch(`${node.url}/v1/turns/T-${channels[0]}`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as { state: string; outcome?: string };
        expect(body.state).toBe('ended');
        return body;
      }, WAIT);
      expect(turn.outcome).toBe('ok');
    }
  }, 120_000);

  it('kill -9 of the owner mid-turn: the other takes over and goes on editing the same log (23.4)', async () => {
    const nodes = await startCluster(2);
    const channel = 'C0FAILOVR';
    const space = `slack:${channel}`;
    await postEvents(pick(nodes), [{ space, type: 'turn_started', turnId: 'F1' }]);
    for (let line = 1; line <= 5; line++)
      expect(
        await postEvents(pick(nodes), [{ space, type: 'note', turnId: 'F1', text: `line-${line}` }]),
      ).toBe(202);
    await vi.waitFor(
      () => expect(linesIn(shown(channel, 'X').logs[0]?.text ?? '')).toEqual(range(1, 5)),
      WAIT,
    );
    const owner = await vi.waitFor(() => ownerOf(nodes, space), WAIT);
    const survivor = nodes.find((n) => n !== owner) as ClusterNode;
    const logId = shown(channel, 'X').logs[0]?.id;

    await kill9(owner);
    // Accepted (durable) at once by the survivor, applied once it holds the lease.
    for (let line = 6; line <= 10; line++)
      expect(await postEvents(survivor, [{ space, type: 'note', turnId: 'F1', text: `line-${line}` }])).toBe(
        202,
      );
    await postEvents(survivor, [
      { space, type: 'answer', turnId: 'F1', text: 'ANSWER-F1' },
      { space, type: 'turn_ended', turnId: 'F1', outcome: 'ok' },
    ]);
    await vi.waitFor(async () => expect((await health(survivor)).cluster?.owns).toContain(space), WAIT);
    await vi.waitFor(() => {
      const { logs, answers } = shown(channel, 'ANSWER-F1');
      expect(logs.map((m) => m.id)).toEqual([logId]);
      expect(linesIn(logs[0]?.text ?? '')).toEqual(range(1, 10));
      expect(answers).toHaveLength(1);
    }, WAIT);
    expect(logCreates(channel)).toBe(1);
  }, 120_000);

  it('SIGSTOP past the lease, then SIGCONT: the paused owner stands down and writes nothing (23.2, 23.4)', async () => {
    const nodes = await startCluster(2);
    const channel = 'C0PAUSED1';
    const space = `slack:${channel}`;
    await postEvents(pick(nodes), [{ space, type: 'turn_started', turnId: 'P1' }]);
    for (let line = 1; line <= 3; line++)
      await postEvents(pick(nodes), [{ space, type: 'note', turnId: 'P1', text: `line-${line}` }]);
    await vi.waitFor(
      () => expect(linesIn(shown(channel, 'X').logs[0]?.text ?? '')).toEqual(range(1, 3)),
      WAIT,
    );
    const owner = await vi.waitFor(() => ownerOf(nodes, space), WAIT);
    const survivor = nodes.find((n) => n !== owner) as ClusterNode;

    // A line the owner takes and pauses on (its frame is debounced), then the pause outlives the lease.
    expect(await postEvents(owner, [{ space, type: 'note', turnId: 'P1', text: 'line-4' }])).toBe(202);
    owner.child.kill('SIGSTOP');
    await vi.waitFor(async () => expect((await health(survivor)).cluster?.owns).toContain(space), WAIT);
    for (let line = 5; line <= 6; line++)
      expect(await postEvents(survivor, [{ space, type: 'note', turnId: 'P1', text: `line-${line}` }])).toBe(
        202,
      );
    await vi.waitFor(
      () => expect(linesIn(shown(channel, 'X').logs[0]?.text ?? '')).toEqual(range(1, 6)),
      WAIT,
    );
    const takenOverAt = emulator.state.calls().at(-1)?.seq ?? 0;

    owner.child.kill('SIGCONT');
    // It finds its lease gone and stands down (its log says so; its /healthz no longer lists the space).
    await vi.waitFor(() => expect(owner.stderr()).toContain('lost the lease'), WAIT);
    await vi.waitFor(
      async () => expect((await health(owner)).cluster?.owns ?? []).not.toContain(space),
      WAIT,
    );
    await postEvents(pick(nodes), [
      { space, type: 'answer', turnId: 'P1', text: 'ANSWER-P1' },
      { space, type: 'turn_ended', turnId: 'P1', outcome: 'ok' },
    ]);
    await vi.waitFor(() => {
      const { logs, answers } = shown(channel, 'ANSWER-P1');
      expect(logs).toHaveLength(1);
      expect(linesIn(logs[0]?.text ?? '')).toEqual(range(1, 6));
      expect(answers).toHaveLength(1);
    }, WAIT);
    // Nothing written after the takeover lacks the successor's lines: the resumed process wrote nothing stale.
    const later = emulator.state
      .calls(takenOverAt)
      .filter((c) => c.space === channel && /line-\d+/.test(c.text ?? ''));
    for (const call of later) expect(linesIn(call.text ?? '')).toEqual(range(1, 6));
    expect(logCreates(channel)).toBe(1);
  }, 120_000);
});
