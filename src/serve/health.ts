/** `/healthz`: asks every configured surface whether it is ready, each within a time bound. */
import type { ChatSurface } from '../surfaces/surface.js';

export interface SurfaceProblem {
  surface: string;
  reason: string;
}

/** The surfaces that are not ready, with why; empty when all are. A surface without `ready()` counts as ready. */
export async function checkSurfaces(
  surfaces: Partial<Record<string, ChatSurface>>,
  timeoutMs: number,
): Promise<SurfaceProblem[]> {
  const checks = Object.entries(surfaces).map(
    async ([platform, surface]): Promise<SurfaceProblem | undefined> => {
      if (surface?.ready === undefined) return undefined;
      const reason = await readiness(surface.ready.bind(surface), timeoutMs);
      return reason === undefined ? undefined : { surface: platform, reason };
    },
  );
  return (await Promise.all(checks)).filter((problem) => problem !== undefined);
}

async function readiness(ready: () => Promise<boolean>, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`ready() did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const answer = ready().then(
      (ok) => (ok ? undefined : 'not ready'),
      (error: unknown) => `ready() failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return await Promise.race([answer, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
