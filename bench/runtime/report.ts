/** Plain-text tables and number formats for the runtime benchmark's output. */

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

export const signedBytes = (bytes: number): string => `${bytes >= 0 ? '+' : ''}${count(bytes)}`;

/** CPU seconds this process has used (user + system), to time a phase on a shared machine. */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Progress of a long phase, on stderr so the tables on stdout stay clean. */
export const progress = (message: string): void => {
  process.stderr.write(`  … ${message}\n`);
};
