/** A config that cannot run: the message names the key and what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
