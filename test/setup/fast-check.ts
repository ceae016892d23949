/**
 * Property tests run on a fixed seed, so `npm test` is deterministic: a
 * counterexample found once fails every run until it is fixed, and CI never
 * flakes on a seed nobody can replay. `npm run fuzz` runs them on fresh random
 * seeds (FC_SEED=random); FC_SEED=<n> replays the seed a failure printed.
 */
import fc from 'fast-check';

const DEFAULT_SEED = 20_261_130;

const setting = process.env.FC_SEED;
if (setting !== undefined && setting !== 'random' && !Number.isInteger(Number(setting))) {
  throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(setting)}`);
}
if (setting !== 'random')
  fc.configureGlobal({ seed: setting === undefined ? DEFAULT_SEED : Number(setting) });
