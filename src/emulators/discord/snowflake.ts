/**
 * Discord snowflake ids: `(ms since 2015-01-01) << 22 | worker << 17 |
 * process << 12 | increment`, as decimal strings of 17–20 digits that sort by
 * creation time.
 */

/** 2015-01-01T00:00:00Z, the first second of the Discord epoch. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/**
 * The smallest timestamp that still gives a 17-digit id (about four weeks
 * after the epoch): a simulated clock starting at 0 must not produce short
 * ids that a client would reject as not-a-snowflake.
 */
const MIN_TIMESTAMP_MS = 2_400_000_000;

const SNOWFLAKE = /^\d{1,20}$/;

/** Does `id` look like a snowflake (1–20 digits, as Discord's path validation accepts)? */
export function isSnowflake(id: string): boolean {
  return SNOWFLAKE.test(id) && BigInt(id) < 2n ** 64n;
}

/** The creation time (epoch ms) encoded in a snowflake. */
export function snowflakeTimestamp(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** Strictly increasing snowflakes stamped with `now()`; a clock that stands still or runs back still gets fresh ids. */
export function createSnowflakeGenerator(now: () => number): () => string {
  const worker = 1n << 17n;
  let last = 0n;
  return () => {
    const timestamp = BigInt(Math.max(Math.floor(now()) - DISCORD_EPOCH_MS, MIN_TIMESTAMP_MS));
    let id = (timestamp << 22n) | worker;
    if (id <= last) id = last + 1n;
    last = id;
    return id.toString();
  };
}
