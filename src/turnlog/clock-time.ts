/**
 * `HH:MM:SS` wall-clock time in an IANA time zone. Building an
 * `Intl.DateTimeFormat` costs far more than using one, so one is kept per zone;
 * and using one costs more than the rest of a log entry, so the last second
 * formatted is kept per zone too (entries come in bursts within one second).
 */

interface ZoneFormat {
  formatter: Intl.DateTimeFormat;
  /** The last whole second formatted (epoch s) and its text. */
  second: number;
  text: string;
}

const formatters = new Map<string, ZoneFormat>();

/** `at` (epoch ms) as `HH:MM:SS`, 00–23 hours; `timeZone` defaults to the process's zone. */
export function formatClockTime(at: number, timeZone?: string): string {
  const zone = formatterFor(timeZone);
  const second = Math.floor(at / 1000);
  // No time zone offset is a fraction of a second, so one second reads as one HH:MM:SS.
  if (second !== zone.second || !Number.isFinite(second)) {
    zone.text = zone.formatter.format(at);
    zone.second = second;
  }
  return zone.text;
}

function formatterFor(timeZone: string | undefined): ZoneFormat {
  const key = timeZone ?? '';
  let zone = formatters.get(key);
  if (zone === undefined) {
    let formatter: Intl.DateTimeFormat;
    try {
      formatter = new Intl.DateTimeFormat('en-GB', {
        timeZone,
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      });
    } catch (error) {
      throw new RangeError(`timeZone "${key}" is not a known IANA time zone (e.g. "Europe/Paris", "UTC")`, {
        cause: error,
      });
    }
    zone = { formatter, second: Number.NaN, text: '' };
    formatters.set(key, zone);
  }
  return zone;
}
