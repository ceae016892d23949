/**
 * Each space's settings: the config's (routing, the turn's limits sized to
 * what its platform's surface accepts), with the changes made at run time
 * (`configureSpace`) over them; and each platform's budget input.
 */
import type { SpaceSettings } from '../../machines/space.machine.js';
import { budgetDefaults } from '../budget/config.js';
import type { TurnlogConfig } from '../config.js';
import type { PlatformCapabilities } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import { resolveSpaceRouting } from '../routing/route.js';
import type { CondenseStrategy } from '../turnlog/types.js';
import type { SpaceOverrides } from './types.js';

/**
 * The condenser's budget per log message: the config's, or less when the
 * platform's surface accepts less (per message, or per text element), so no
 * frame ever exceeds what the platform takes.
 */
export function logMessageChars(
  config: TurnlogConfig,
  capabilities?: Readonly<Partial<PlatformCapabilities>>,
): number {
  return Math.min(
    config.visibility.threadLog.maxLogMessageChars,
    capabilities?.maxChars ?? Number.POSITIVE_INFINITY,
    capabilities?.maxTextElementChars ?? Number.POSITIVE_INFINITY,
  );
}

export function spaceSettingsFor(
  config: TurnlogConfig,
  space: string,
  capabilities?: Readonly<Partial<PlatformCapabilities>>,
): SpaceSettings {
  const { visibility, runtime } = config;
  return {
    routing: resolveSpaceRouting(visibility, config.spaces[space]),
    turn: {
      editDebounceMs: visibility.threadLog.editDebounceMs,
      maxChars: logMessageChars(config, capabilities),
      strategy: visibility.threadLog.condenseStrategy as CondenseStrategy,
      editRetryMs: runtime.editRetryMs,
      terminalAttempts: runtime.terminalAttempts,
      stopButton: visibility.stopButton,
    },
    anchorCapacity: runtime.anchorCapacity,
    maxRestarts: runtime.maxTurnRestarts,
    finalReplyInThread: visibility.finalReplyInThread,
    jobs: visibility.jobs,
    reactions: visibility.reactions,
  };
}

/** A platform's budget: its descriptor's defaults under the config's `budgets.<platform>`. */
export function budgetInput(config: TurnlogConfig, platform: string, registry: PlatformRegistry) {
  const own = (
    config.budgets as Partial<Record<string, (typeof config.budgets)[keyof typeof config.budgets]>>
  )[platform];
  return { ...budgetDefaults(platform, registry), ...own, platform };
}

/** Space settings changed at run time, over `config.spaces` (saved by the caller, restored at start). */
export function createSpaceOverrides(config: TurnlogConfig) {
  const overrides = new Map<string, SpaceOverrides>();
  return {
    /** The space's own settings: the config's, then the run-time ones. */
    own: (space: string): SpaceOverrides => ({ ...config.spaces[space], ...overrides.get(space) }),
    /** The run-time ones alone. */
    changes: (space: string): SpaceOverrides | undefined => overrides.get(space),
    set(space: string, settings: SpaceOverrides): void {
      overrides.set(space, settings);
    },
    /** Saved settings from the store: those changed in this process before they arrived win. */
    load(space: string, saved: SpaceOverrides): void {
      overrides.set(space, { ...saved, ...overrides.get(space) });
    },
    clear(space: string): void {
      overrides.delete(space);
    },
  };
}

export type SpaceOverridesMap = ReturnType<typeof createSpaceOverrides>;
