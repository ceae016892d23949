/** A config that cannot run: the message names the key and what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A platform refused what the config gave it at start-up (a token): the message names the key. */
export class PlatformStartupError extends Error {
  override readonly name: string = 'PlatformStartupError';
}
