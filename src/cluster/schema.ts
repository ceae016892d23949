/**
 * The cluster's own tables (issue 23.2/23.3), next to the store's: the live
 * instances (heartbeats), one lease per space (owner, term = the fencing
 * token, expiry), the spaces ever seen, and the inbox every process appends
 * accepted events to. Created once per database, under an advisory lock, so
 * processes starting together do not race.
 */
import type { Pool } from 'pg';

/** Any constant: the advisory lock the cluster's schema is created under. */
const SCHEMA_LOCK = 231_023;

export const TABLES = {
  instances: 'turnlog_cluster_instances',
  leases: 'turnlog_cluster_leases',
  spaces: 'turnlog_cluster_spaces',
  inbox: 'turnlog_cluster_inbox',
} as const;

const DDL = `
CREATE TABLE IF NOT EXISTS ${TABLES.instances} (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${TABLES.leases} (
  space text PRIMARY KEY,
  owner text,
  term bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS ${TABLES.spaces} (
  space text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${TABLES.inbox} (
  id bigserial PRIMARY KEY,
  space text NOT NULL,
  turn_id text,
  event_id text,
  kind text NOT NULL,
  body jsonb NOT NULL,
  received_by text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  result jsonb
);
CREATE INDEX IF NOT EXISTS ${TABLES.inbox}_pending ON ${TABLES.inbox} (space, id) WHERE applied_at IS NULL;
CREATE INDEX IF NOT EXISTS ${TABLES.inbox}_applied ON ${TABLES.inbox} (applied_at) WHERE applied_at IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS ${TABLES.inbox}_event ON ${TABLES.inbox} (space, (coalesce(turn_id, '')), event_id)
  WHERE event_id IS NOT NULL;
`;

export async function ensureClusterSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    try {
      await client.query(DDL);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]);
    }
  } finally {
    client.release();
  }
}
