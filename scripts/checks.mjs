// The static checks of `npm test`, run side by side (issue 24 item 4): the
// typecheck on one core, the build and the API report on another, the quick
// ones (lint, state charts, layer rules) alongside. Each step is named with
// its time once it ends, and its output is printed if it failed; the exit
// code is 1 if any failed.
import { spawn } from 'node:child_process';

const LANES = [['typecheck'], ['build', 'api:check'], ['lint', 'viz:check', 'deps']];

function run(script) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString('utf8').trimEnd();
      process.stdout.write(`${code === 0 ? '✓' : '✗'} npm run ${script} (${seconds} s)\n`);
      if (output !== '' && code !== 0) process.stdout.write(`${output}\n`);
      resolve(code === 0);
    });
  });
}

async function lane(scripts) {
  for (const script of scripts) if (!(await run(script))) return false;
  return true;
}

const results = await Promise.all(LANES.map(lane));
process.exitCode = results.every(Boolean) ? 0 : 1;
