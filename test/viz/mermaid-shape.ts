/**
 * A structural check of generated Mermaid state diagrams, standing in for
 * Mermaid itself (not installed): every line is one of the statements the
 * generator may write, ids are plain, labels hold nothing that ends a
 * statement, blocks balance, and every arrow's ends are declared states.
 */

export interface DiagramShape {
  /** Declared state ids and their labels. */
  labels: Map<string, string>;
  /** id → the composite block it is declared in ('' for the top level). */
  parents: Map<string, string>;
  arrows: { from: string; to: string; label: string; block: string }[];
  /** id → its text lines (transitions that only run actions). */
  lines: Map<string, string[]>;
  problems: string[];
}

const ID = '[A-Za-z][A-Za-z0-9_]*';
const LABEL = '[^:;"\\n%<>]+';
const PATTERNS = {
  comment: /^%% .+$/,
  composite: new RegExp(`^state "(${LABEL})" as (${ID}) \\{$`),
  state: new RegExp(`^state "(${LABEL})" as (${ID})$`),
  close: /^\}$/,
  divider: /^--$/,
  initial: new RegExp(`^\\[\\*\\] --> (${ID})$`),
  final: new RegExp(`^(${ID}) --> \\[\\*\\]$`),
  arrow: new RegExp(`^(${ID}) --> (${ID}) : (${LABEL})$`),
  line: new RegExp(`^(${ID}) : (${LABEL})$`),
  classDef: /^classDef \w+ .+$/,
  class: new RegExp(`^class (${ID}) \\w+$`),
};

export function readDiagram(text: string): DiagramShape {
  const shape: DiagramShape = {
    labels: new Map(),
    parents: new Map(),
    arrows: [],
    lines: new Map(),
    problems: [],
  };
  const [header, ...body] = text.trimEnd().split('\n');
  if (header !== 'stateDiagram-v2') shape.problems.push(`first line is "${header}"`);
  const stack: string[] = [];
  const referenced: string[] = [];
  const block = () => stack.at(-1) ?? '';
  for (const raw of body) {
    const line = raw.trim();
    if (PATTERNS.comment.test(line) || PATTERNS.divider.test(line) || PATTERNS.classDef.test(line)) continue;
    if (PATTERNS.close.test(line)) {
      if (stack.pop() === undefined) shape.problems.push('unbalanced }');
      continue;
    }
    const composite = PATTERNS.composite.exec(line);
    if (composite) {
      declare(shape, composite[2]!, composite[1]!, block(), true);
      stack.push(composite[2]!);
      continue;
    }
    const state = PATTERNS.state.exec(line);
    if (state) {
      declare(shape, state[2]!, state[1]!, block(), false);
      continue;
    }
    const arrow = PATTERNS.arrow.exec(line);
    if (arrow) {
      shape.arrows.push({ from: arrow[1]!, to: arrow[2]!, label: arrow[3]!, block: block() });
      referenced.push(arrow[1]!, arrow[2]!);
      continue;
    }
    const text = PATTERNS.line.exec(line);
    if (text) {
      shape.lines.set(text[1]!, [...(shape.lines.get(text[1]!) ?? []), text[2]!]);
      referenced.push(text[1]!);
      continue;
    }
    const end = PATTERNS.initial.exec(line) ?? PATTERNS.final.exec(line) ?? PATTERNS.class.exec(line);
    if (end) referenced.push(end[1]!);
    else shape.problems.push(`unexpected line "${line}"`);
  }
  if (stack.length > 0) shape.problems.push(`unclosed blocks ${stack.join(', ')}`);
  for (const id of referenced)
    if (!shape.labels.has(id)) shape.problems.push(`${id} is used but not declared`);
  return shape;
}

function declare(shape: DiagramShape, id: string, label: string, parent: string, composite: boolean): void {
  if (shape.labels.has(id)) shape.problems.push(`${id} is declared twice`);
  if (!composite && id === label)
    shape.problems.push(`${id} has its id as label (its text lines would replace the label)`);
  shape.labels.set(id, label);
  shape.parents.set(id, parent);
}

/** The label of an arrow from→to, for terse assertions. */
export function arrowLabels(shape: DiagramShape, from: string, to: string): string[] {
  return shape.arrows.filter((a) => a.from === from && a.to === to).map((a) => a.label);
}
