/**
 * `HH:MM:SS` wall-clock time in an IANA time zone. Building an
 * `Intl.DateTimeFormat` costs far more than using one, so one is kept per zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `at` (epoch ms) as `HH:MM:SS`, 00–23 hours; `timeZone` defaults to the process's zone. */
export function formatClockTime(at: number, timeZone?: string): string {
  return formatterFor(timeZone).format(at);
}

function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let formatter = formatters.get(key);
  if (formatter === undefined) {
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
    formatters.set(key, formatter);
  }
  return formatter;
}
