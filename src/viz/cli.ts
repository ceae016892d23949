/** `turnlog viz [--check]` and `tsx scripts/viz.ts [--check]`: regenerate or verify `visualizations/`. */
import { type GenerateOptions, type GenerateResult, generateVisualizations } from './generate.js';

export const VIZ_USAGE = `Usage: turnlog viz [--check]

  (no option)  write one Mermaid diagram per machine in machines/ to visualizations/
  --check      write nothing; exit 1 when visualizations/ is stale
`;

export interface VizIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Runs the command; resolves to the process exit code (0 ok, 1 stale or failed, 2 bad usage). */
export async function runVizCommand(
  argv: readonly string[],
  io: VizIO = process,
  options: Omit<GenerateOptions, 'check'> = {},
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(VIZ_USAGE);
    return 0;
  }
  const unknown = argv.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    io.stderr.write(`viz: unknown argument ${unknown.map((a) => `"${a}"`).join(', ')}\n\n${VIZ_USAGE}`);
    return 2;
  }
  const check = argv.includes('--check');
  const dir = options.dir ?? 'visualizations';
  let result: GenerateResult;
  try {
    result = await generateVisualizations({ ...options, dir, check });
  } catch (error) {
    io.stderr.write(
      `viz: could not draw the machines: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  if (check) return reportCheck(result, dir, io);
  for (const path of result.written) io.stdout.write(`viz: wrote ${path}\n`);
  for (const path of result.removed) io.stdout.write(`viz: removed ${path} (no machine has that id)\n`);
  if (result.written.length === 0 && result.removed.length === 0)
    io.stdout.write(`viz: ${dir}/ is up to date\n`);
  return 0;
}

function reportCheck(result: GenerateResult, dir: string, io: VizIO): number {
  if (result.stale.length === 0) {
    io.stdout.write(`viz: ${dir}/ matches the machines\n`);
    return 0;
  }
  const files = result.stale.map((path) => `  ${path} (${result.staleReasons[path]})\n`).join('');
  io.stderr.write(
    `viz: ${dir}/ does not match the machines in machines/:\n${files}Run \`npm run viz\` (or \`turnlog viz\`) and commit ${dir}/.\n`,
  );
  return 1;
}
