/** What a CLI command may touch: output streams and process signals (tests pass their own). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Called once on SIGINT/SIGTERM. */
  onSignal(handler: () => void): void;
}

/** A usage error: printed as `turnlog <command>: <message>`, exit code 2. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
