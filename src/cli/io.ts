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

/** The real process: stdout, stderr, and SIGINT/SIGTERM. */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  onSignal: (handler) => {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  },
};
