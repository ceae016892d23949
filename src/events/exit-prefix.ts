/**
 * Reads the exit-status prefix every executor puts on a failed command's
 * output (docs/architecture.md item 1): `exit 2: …` or, when the process never
 * ran, an errno or signal name, `exit ENOENT: …`. This is the one reader of
 * that contract.
 */
export interface ExitStatus {
  /** The numeric exit code; absent when the process failed without one (errno, signal). */
  exitCode?: number;
  failed: boolean;
}

/**
 * Anchored at the start, after any whitespace or ANSI CSI sequences (a
 * coloured prompt). Each repetition starts with a distinct first character, so
 * the leading run is matched in one pass.
 */
const EXIT_PREFIX = /^(?:\s|\x1b\[[0-?]*[ -/]*[@-~])*exit[ \t]+(?:(-?\d{1,10})|([A-Z][A-Z0-9_]{1,31})):/;

/** `exit 2:` → code 2, failed; `exit ENOENT:` → failed, no code; anything else → a clean 0. */
export function parseExitPrefix(text: string): ExitStatus {
  const m = EXIT_PREFIX.exec(text);
  if (m === null) return { exitCode: 0, failed: false };
  if (m[1] === undefined) return { failed: true };
  const exitCode = Number(m[1]);
  return { exitCode, failed: exitCode !== 0 };
}
