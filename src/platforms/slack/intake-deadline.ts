/**
 * Slack wants an answer within 3 s: how long turnlog waits for the
 * runtime's verdict before it answers anyway (the work goes on).
 */

/** Slack's deadline is 3 s; the verdict is awaited for a little less, so the answer always makes it. */
export const ACK_DEADLINE_MS = 2500;

/** The runtime's verdict, or undefined when it takes longer than `ms` (the work goes on). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
