/**
 * Issue 24 item 1: `formatClockTime` keeps the last second it formatted per
 * time zone (entries come in bursts). The text must stay what the zone's
 * formatter says for every instant: across seconds, across zones used in
 * turn, and before the epoch.
 */
import { describe, expect, it } from 'vitest';
import { formatClockTime } from '../../src/turnlog/clock-time.js';

const reference = (at: number, timeZone?: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(at);

describe('formatClockTime (issue 24 item 1: the last second kept per zone)', () => {
  it('gives the zone formatter’s text for every instant, zones interleaved', () => {
    const zones = [undefined, 'UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam'];
    const instants = [
      0, 999, 1_000, 1_000, 59_999, 60_000, 1_733_140_799_999, 1_733_140_800_000, 1_733_140_800_500, -1,
      -1_000, -1_001, -2_208_988_800_000, 1_711_846_799_999, 1_711_846_800_000,
    ];
    for (const at of instants) {
      for (const zone of zones)
        expect(formatClockTime(at, zone), `${at} in ${zone}`).toBe(reference(at, zone));
    }
  });

  it('still refuses an unknown zone and an invalid time', () => {
    expect(() => formatClockTime(0, 'Mars/Olympus')).toThrow(/not a known IANA time zone/);
    expect(() => formatClockTime(Number.NaN, 'UTC')).toThrow(RangeError);
  });
});
