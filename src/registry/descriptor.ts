/**
 * A platform descriptor: everything turnlog knows about one chat platform,
 * in one folder (src/platforms/<id>/). The registry (registry.ts) is the one
 * place config, budget, serve, routing and render read platform facts from,
 * so adding a platform means adding a folder and a registry line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { IntakeSink } from '../actions/types.js';
import type { BudgetInput } from '../budget/config.js';
import type { ChatSurface, SurfaceCapabilities } from '../surfaces/surface.js';

export interface PlatformCapabilities extends SurfaceCapabilities {
  /** Longest single text element (Slack: 3,000 per block text; Discord V2: 4,000 in all). Default: `maxChars`. */
  maxTextElementChars?: number;
  /** A message older than this can no longer be edited freely (Discord: 30046 after 1 h); the turn rolls over before. */
  maxEditableAgeMs?: number;
  /** Most buttons one card shows (a `question` with more options is refused at ingest). Default: no limit. */
  maxButtons?: number;
}

/** What a surface factory gets besides its config section. */
export interface SurfaceContext {
  /** Epoch ms (the runtime clock). */
  now: () => number;
  /** Per-request timeout (ms). */
  requestTimeoutMs?: number;
  /** The environment secrets and credentials are looked up in. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What a platform intake gets: where verified events go, the clock, a logger. */
export interface IntakeContext {
  /** The runtime: takes a person's message or a button press (src/actions/types.ts). */
  sink: IntakeSink;
  /** Epoch ms (the runtime clock). */
  now: () => number;
  logger: {
    info(message: string, fields?: Record<string, unknown>): void;
    warn(message: string, fields?: Record<string, unknown>): void;
  };
  /** The environment secrets are looked up in. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Keeps what an authenticated request carried that turnlog could not take
   * (docs/http-api.md, "Platform intake"): a body that does not parse, an
   * event type or button it does not know, a runtime that threw. `reason`
   * names what is wrong; `payload` is what came (the body, not the headers).
   * Serve redacts both, caps the payload and stores them as a dead letter
   * with source `intake:<platform id>`; it never throws. A request that
   * failed verification is never given here: it is counted in `refused()`
   * and logged, so an unauthenticated sender cannot fill the disk.
   * Serve always sets it; without it (a bare intake in a test) the intake
   * only logs.
   */
  deadLetter?(reason: string, payload: string): void;
}

/**
 * A platform's own events reaching turnlog (docs/http-api.md, "Platform
 * intake"): an HTTP endpoint `turnlog serve` mounts at
 * `/v1/platforms/<id>/events` (verified by the platform's own scheme, not the
 * ingest token), and/or a connection it keeps (Discord's gateway, Slack's
 * Socket Mode).
 */
export interface PlatformIntake {
  /** Serves `POST /v1/platforms/<id>/events`; answers 401 to a request that fails verification. */
  handle?(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Connects (a gateway, a socket); serve awaits it after the runtime is ready. */
  start?(): Promise<void>;
  /** Disconnects; serve awaits it before the runtime stops. */
  stop?(): Promise<void>;
  /** Requests refused since start because they failed verification. */
  refused(): number;
}

export interface PlatformDescriptor<Config = unknown> {
  /** The space prefix and config key: `gchat`, `slack`, `discord`. */
  readonly id: string;
  /** For people: `Google Chat`. */
  readonly displayName: string;
  /** The platform's own part of a space id (after `<id>:`), e.g. `^spaces/[A-Za-z0-9_-]+$`. */
  readonly spaceIdPattern: RegExp;
  /** An example space, shown in errors: `gchat:spaces/AAAA`. */
  readonly spaceExample: string;
  readonly capabilities: Readonly<PlatformCapabilities>;
  /** The budget's defaults for one app on this platform (`platform` is filled in from `id`). */
  readonly budget: Omit<BudgetInput, 'platform'>;
  /** What the platform rate-limits as one channel (Discord: a thread is a channel of its own). */
  rateChannel(space: string, threadId: string | undefined): string;
  /** Regex sources of mention forms only this platform parses (broken by `neutralizeBroadMentions`). */
  readonly mentionForms: readonly string[];
  /** `platforms.<id>` in the config file. */
  readonly configSchema: z.ZodType<Config>;
  /** Keys of `platforms.<id>` that hold secrets, which may be given as `"env:NAME"` (e.g. `token`). */
  readonly secretKeys?: readonly string[];
  /**
   * Checks run once when serve starts, before any turn (a Slack token
   * `auth.test` refuses): throws a `PlatformStartupError` naming the key.
   */
  checkStartup?(config: Config): Promise<void>;
  /** The surface over the platform's official client. */
  createSurface(config: Config, context: SurfaceContext): ChatSurface;
  /**
   * The platform's intake, when its config asks for one (a signing secret, a
   * gateway, an events audience); undefined when it does not.
   */
  createIntake?(config: Config, context: IntakeContext): PlatformIntake | undefined;
}
