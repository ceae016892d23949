/**
 * Issue 25.5: the browser the run page tests drive. `TURNLOG_CHROMIUM`, else
 * Debian's `/usr/bin/chromium`. When it is missing and this process may
 * install it (root, apt-get present), it is installed; otherwise the test
 * fails naming the command to run. Never skipped silently.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y chromium';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.TURNLOG_CHROMIUM || '/usr/bin/chromium';
  if (existsSync(path)) return path;
  const root = process.getuid?.() === 0;
  if (env.TURNLOG_CHROMIUM === undefined && root && existsSync('/usr/bin/apt-get')) {
    execFileSync('sh', ['-c', CHROMIUM_INSTALL], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (existsSync(path)) return path;
  }
  throw new Error(
    `the run page tests need Chromium at ${path} (TURNLOG_CHROMIUM): install it with \`${CHROMIUM_INSTALL}\` ` +
      '(as root), or point TURNLOG_CHROMIUM at a Chromium binary',
  );
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
}
