/** The chat surfaces `turnlog serve` posts through, one per configured platform. */
import { ConfigError, type TurnlogConfig } from '../config.js';
import { redactRawText } from '../events/scrub.js';
import type { IntakeContext, PlatformIntake, SurfaceContext } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { DeadLetterRecord, MaybePromise } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';

/** At most this much of a request an intake could not take is kept as its dead letter (characters). */
export const INTAKE_DEAD_LETTER_CHARS = 64 * 1024;

/**
 * Builds a surface for every platform under `platforms`, through its
 * descriptor's `createSurface` (a platform that cannot serve, e.g. without
 * credentials, refuses with a ConfigError naming the key). At least one
 * platform is needed.
 */
export function createSurfaces(
  platforms: TurnlogConfig['platforms'],
  registry: PlatformRegistry,
  context: SurfaceContext = { now: Date.now },
): Partial<Record<string, ChatSurface>> {
  const surfaces: Partial<Record<string, ChatSurface>> = {};
  for (const [id, config] of Object.entries(platforms as Record<string, unknown>)) {
    if (config === undefined) continue;
    const descriptor = registry.get(id);
    if (descriptor === undefined) {
      throw new ConfigError(`platforms.${id}: unknown platform (${registry.ids.join(', ')})`);
    }
    surfaces[id] = descriptor.createSurface(config, context);
  }
  if (Object.keys(surfaces).length === 0) {
    throw new ConfigError(
      'platforms: configure at least one platform, e.g. {"platforms": {"gchat": {"apiUrl": "http://127.0.0.1:PORT"}}} for an emulator',
    );
  }
  return surfaces;
}

/**
 * The intakes of the configured platforms that ask for one (docs/http-api.md,
 * "Platform intake"): by platform id, for `POST /v1/platforms/<id>/events`
 * and the connections serve keeps (a gateway). With `keep` (the store's
 * `deadLetter`), each intake's `deadLetter` stores what it could not take,
 * redacted, with source `intake:<id>`.
 */
export function createIntakes(
  platforms: TurnlogConfig['platforms'],
  registry: PlatformRegistry,
  context: IntakeContext,
  keep?: (record: DeadLetterRecord) => MaybePromise<void>,
): Record<string, PlatformIntake> {
  const intakes: Record<string, PlatformIntake> = {};
  for (const [id, config] of Object.entries(platforms as Record<string, unknown>)) {
    if (config === undefined) continue;
    const own =
      keep === undefined ? context : { ...context, deadLetter: intakeDeadLetter(id, keep, context) };
    const intake = registry.get(id)?.createIntake?.(config, own);
    if (intake !== undefined) intakes[id] = intake;
  }
  return intakes;
}

/**
 * An intake's `deadLetter`: what never reached the runtime is redacted here
 * (reason and payload, as ingest redacts a refused line), the payload capped
 * at INTAKE_DEAD_LETTER_CHARS, and a store that fails is logged, not thrown
 * at the intake (which still answers the platform).
 */
export function intakeDeadLetter(
  platform: string,
  keep: (record: DeadLetterRecord) => MaybePromise<void>,
  context: Pick<IntakeContext, 'now' | 'logger'>,
): (reason: string, payload: string) => void {
  const failed = (error: unknown) =>
    context.logger.warn(`${platform} intake: storing a dead letter failed`, {
      error: error instanceof Error ? error.message : String(error),
    });
  return (reason, payload) => {
    const redacted = redactRawText(payload);
    const clipped = redacted.length > INTAKE_DEAD_LETTER_CHARS;
    try {
      const result = keep({
        at: context.now(),
        source: `intake:${platform}`,
        reason: redactRawText(
          clipped ? `${reason}; first ${INTAKE_DEAD_LETTER_CHARS} characters kept` : reason,
        ),
        payload: clipped ? redacted.slice(0, INTAKE_DEAD_LETTER_CHARS) : redacted,
      });
      if (result instanceof Promise) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  };
}
