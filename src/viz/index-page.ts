/** `visualizations/README.md`: what the diagrams are, how to read them, and one line per machine. */
import type { MachineModule } from './machine-modules.js';

export interface IndexEntry {
  /** The diagram's file name, next to the index (`turn.mmd`). */
  file: string;
  module: MachineModule;
}

const PREAMBLE = `# Machine diagrams

One Mermaid state diagram per XState machine in \`machines/\`, generated from
the machine definitions by \`npm run viz\` (\`turnlog viz\`). Do not edit them
by hand: \`npm run viz:check\`, part of \`npm test\`, fails when they are stale.

To look at one, paste the \`.mmd\` file into https://mermaid.live, or paste
the machine file itself into Stately Studio (https://stately.ai/editor,
"Import from code").

Reading them: an arrow is a transition, labelled \`event [guard]\`;
\`after <delay>\` is a timer, \`<actor> done\` / \`<actor> error\` an invoked
actor finishing or failing, \`always\` an eventless transition. Text lines
inside a state are transitions that only run actions; a dashed
"any substate" box lists what a composite state handles in every substate.
`;

export function renderIndexPage(entries: readonly IndexEntry[]): string {
  const lines = entries.map(({ file, module }) => {
    const what = module.description === '' ? '' : `: ${module.description}`;
    return `- [\`${file}\`](${file}) — \`${module.exportName}\` in \`${module.source}\`${what}`;
  });
  return `${PREAMBLE}\n## Machines\n\n${lines.join('\n')}\n`;
}
