import type { z } from 'zod';

/**
 * `rules[0].status: Invalid input: expected number, received string` — every
 * issue, `; `-separated, each naming its field (under `root` when given).
 */
export function describeZodError(error: z.ZodError, root = ''): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.reduce<string>(
        (path, key) =>
          typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${String(key)}` : String(key),
        root,
      );
      return `${field || '(body)'}: ${issue.message}`;
    })
    .join('; ');
}
