/**
 * `npm run viz` writes one Mermaid diagram per machine to visualizations/;
 * `npm run viz:check` (`--check`) exits 1 naming the stale files. See src/viz/cli.ts.
 */
import { runVizCommand } from '../src/viz/cli.js';

process.exitCode = await runVizCommand(process.argv.slice(2));
