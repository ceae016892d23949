/**
 * `scrubInput` remembers short strings it found clean (keys, ids, types) so
 * they are not scanned again; a string with a secret is redacted every time
 * it comes, however often, in a key or a value.
 */
import { describe, expect, it } from 'vitest';
import { scrubInput } from '../../src/events/scrub.js';

const TOKEN = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';

describe('scrubInput on repeated strings', () => {
  it('redacts a short secret each time it comes, as a value and as a key', () => {
    for (let n = 0; n < 3; n++) {
      const result = scrubInput({ type: 'note', text: TOKEN, [TOKEN]: 'x' });
      expect(result.ok).toBe(true);
      const text = JSON.stringify(result.ok ? result.value : null);
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('"type":"note"');
    }
  });

  it('a clean string seen before still loses its direction controls', () => {
    expect(scrubInput({ id: 'abc' })).toEqual({ ok: true, value: { id: 'abc' } });
    expect(scrubInput({ id: '\u202Eabc' })).toEqual({ ok: true, value: { id: 'abc' } });
  });
});
