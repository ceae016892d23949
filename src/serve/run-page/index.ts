/**
 * The run page of `turnlog serve` (docs/http-api.md, "The run page"), on
 * when `runs.publicUrl` is set: its links, its routes' dependencies, and the
 * hourly deletion of finished runs past `runs.retentionDays`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Runtime } from '../../runtime.js';
import type { TurnlogStore } from '../../store/store.js';
import type { RunLinks } from './links.js';
import type { RunPageDeps, TurnState } from './route.js';

export { createRunLinks, type RunLinks } from './links.js';
export { handleRunPage, RUN_PAGE_CSP, type RunPageDeps } from './route.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface RunPage {
  links: RunLinks;
  deps: Omit<RunPageDeps, 'closing'>;
  /** Stops the pruning timer. */
  stop(): void;
}

export function createRunPage(options: {
  links: RunLinks;
  retentionDays: number;
  store: TurnlogStore;
  runtime: Pick<Runtime, 'turn' | 'finishedTurn'>;
  clock: Clock;
  logger: Logger;
  pollMs?: number;
}): RunPage {
  const { store, runtime, clock, logger } = options;
  const { links } = options;
  const stateOf = async (turnId: string): Promise<TurnState> => {
    const live = runtime.turn(turnId);
    if (live !== undefined && live.state !== 'ended') return { state: live.state, ended: false };
    const view = live ?? (await runtime.finishedTurn(turnId));
    if (view === undefined) return { state: 'live', ended: false };
    return { state: view.state, ended: true, ...(view.outcome ? { outcome: String(view.outcome) } : {}) };
  };
  let timer: unknown;
  let stopped = false;
  const prune = () => {
    links
      .prune()
      .then((gone) => {
        if (gone > 0)
          logger.info(
            { runs: gone, retentionDays: options.retentionDays },
            'run page: finished runs deleted',
          );
      })
      .catch((error: unknown) => logger.error({ error: String(error) }, 'run page: pruning failed'))
      .finally(() => {
        if (!stopped) timer = clock.setTimeout(prune, PRUNE_EVERY_MS);
      });
  };
  prune();
  return {
    links,
    deps: {
      links,
      events: (turnId) => store.events(turnId),
      stateOf,
      clock,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    },
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
