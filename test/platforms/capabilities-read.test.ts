// Issue 21.3: "every declared capability is read, or removed" — each capability a built-in platform
// declares is read somewhere in the core (outside src/platforms/ and src/emulators/, which declare and
// emulate them), so a capability no code honours cannot be declared and silently ignored.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPlatforms } from '../../src/platforms/all.js';

const SRC = join(import.meta.dirname, '../../src');

function sourcesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'platforms' || name === 'emulators' ? [] : sourcesOf(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('declared capabilities', () => {
  const core = sourcesOf(SRC)
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');

  for (const id of builtinPlatforms.ids) {
    it(`${id}: every capability it declares is read by the core`, () => {
      // Read as `….capabilities.key` (or `?.key` on the next line), the one way the core reads them.
      const unread = Object.keys(builtinPlatforms.require(id).capabilities).filter(
        (key) => !new RegExp(`capabilities[\\s)]*(?:as [\\w |]+\\)?)?\\s*\\??\\.${key}\\b`).test(core),
      );
      expect(unread).toEqual([]);
    });
  }
});
