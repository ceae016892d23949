/**
 * `startServe` as `turnlog` exports it: the daemon (pino, node:http, the
 * platform intakes) is imported on the first call, so `import 'turnlog'`
 * stays light for a host that only parses events or runs the runtime.
 */
import type { Serve, ServeOptions } from './index.js';

export async function startServe(options: ServeOptions): Promise<Serve> {
  const serve = await import('./index.js');
  return serve.startServe(options);
}
