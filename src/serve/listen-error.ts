/**
 * Why `turnlog serve` could not listen, as a ConfigError naming the key to
 * change (`ingest.port`, `ingest.host`); any other error as it is.
 */
import { ConfigError } from '../config.js';

export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      `ingest.port: ${port} on ${host} is already in use (pick another port, or 0 for any free one)`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new ConfigError(`ingest.host: "${host}" is not an address of this machine`);
  }
  if (code === 'EACCES')
    return new ConfigError(`ingest.port: not allowed to listen on port ${port} (below 1024?)`);
  return error instanceof Error ? error : new Error(String(error));
}
