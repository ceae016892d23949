/**
 * The platform registry: the one place config, budget, serve, routing,
 * the event schema (space prefixes) and render read platform facts from.
 * The core knows no platform by name: whoever builds the runtime (serve,
 * the demo, a library user) builds a registry from the descriptors it
 * loaded (src/platforms/builtin.ts for the built-ins) and passes it in.
 */
import type { PlatformDescriptor } from './descriptor.js';

/** A platform id is a space prefix: lowercase letters and digits (then `-`), before the `:`. */
const PLATFORM_ID = /^[a-z][a-z0-9-]*$/;

export class UnknownPlatformError extends Error {
  override readonly name = 'UnknownPlatformError';
}

export interface PlatformRegistry {
  /** Registered ids, in registration order (built-ins first). */
  readonly ids: readonly string[];
  readonly descriptors: readonly PlatformDescriptor[];
  get(id: string): PlatformDescriptor | undefined;
  /** The descriptor of `id`, or an UnknownPlatformError naming the known ones. */
  require(id: string): PlatformDescriptor;
  /** The platform of a prefixed space (`gchat:spaces/A` → gchat), or an UnknownPlatformError. */
  forSpace(space: string): PlatformDescriptor;
  /** Why `space` is not a valid space of a registered platform, or undefined when it is. */
  checkSpace(space: string): string | undefined;
  /** What a valid space looks like, for errors: `gchat:spaces/AAAA, slack:C0123ABCD or discord:<…>`. */
  readonly spaceExamples: string;
  /** One regex matching every valid space of every registered platform. */
  readonly spacePattern: RegExp;
  /** This registry plus `extra` (an id already registered is an error). */
  with(...extra: readonly PlatformDescriptor[]): PlatformRegistry;
}

const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;

/** `^…$` of a platform's own pattern, as an alternative of the combined pattern. */
const inner = (pattern: RegExp): string => pattern.source.replace(/^\^/, '').replace(/\$$/, '');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createPlatformRegistry(descriptors: readonly PlatformDescriptor[]): PlatformRegistry {
  const byId = new Map<string, PlatformDescriptor>();
  for (const descriptor of descriptors) {
    if (!PLATFORM_ID.test(descriptor.id)) {
      throw new TypeError(
        `platform id ${JSON.stringify(descriptor.id)} must be lowercase letters, digits and - (a space prefix)`,
      );
    }
    if (byId.has(descriptor.id)) throw new TypeError(`platform ${descriptor.id} is registered twice`);
    byId.set(descriptor.id, descriptor);
  }
  const ids = [...byId.keys()];
  const known = () => listed(ids);
  const registry: PlatformRegistry = {
    ids,
    descriptors: [...byId.values()],
    get: (id) => byId.get(id),
    require(id) {
      const descriptor = byId.get(id);
      if (!descriptor) throw new UnknownPlatformError(`unknown platform ${JSON.stringify(id)} (${known()})`);
      return descriptor;
    },
    forSpace(space) {
      const colon = space.indexOf(':');
      const descriptor = colon > 0 ? byId.get(space.slice(0, colon)) : undefined;
      if (!descriptor) {
        throw new UnknownPlatformError(
          `space ${JSON.stringify(space)} has no platform prefix (${ids.map((id) => `${id}:`).join(', ')})`,
        );
      }
      return descriptor;
    },
    checkSpace(space) {
      const colon = space.indexOf(':');
      const descriptor = colon > 0 ? byId.get(space.slice(0, colon)) : undefined;
      if (descriptor?.spaceIdPattern.test(space.slice(colon + 1))) return undefined;
      return `a platform-prefixed space: ${registry.spaceExamples}`;
    },
    spaceExamples: listed([...byId.values()].map((d) => d.spaceExample)),
    spacePattern: new RegExp(
      `^(?:${[...byId.values()].map((d) => `${escapeRegExp(d.id)}:(?:${inner(d.spaceIdPattern)})`).join('|')})$`,
    ),
    with: (...extra) =>
      extra.length === 0 ? registry : createPlatformRegistry([...byId.values(), ...extra]),
  };
  return registry;
}

/** A registry as given to the runtime: a registry, or the descriptors to build one from. */
export function asPlatformRegistry(
  platforms: PlatformRegistry | readonly PlatformDescriptor[],
): PlatformRegistry {
  return isRegistry(platforms) ? platforms : createPlatformRegistry(platforms);
}

const isRegistry = (value: PlatformRegistry | readonly PlatformDescriptor[]): value is PlatformRegistry =>
  !Array.isArray(value);
