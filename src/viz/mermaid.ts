/**
 * A machine definition as a Mermaid `stateDiagram-v2`, read from the
 * machine's state nodes (not from a running actor), in definition order so
 * the text only changes when the machine does.
 *
 * How statechart parts map onto Mermaid:
 * - compound states are composite blocks with their own `[*]` initial arrow;
 *   parallel states are composite blocks whose regions are split by `--`;
 *   final states get an arrow to `[*]`;
 * - a transition is an arrow `source --> target : event [guard]`, one per target;
 * - a transition without a target (it only runs actions) is listed inside
 *   the state as a line of text, like UML's internal transitions: on an
 *   atomic state in the state's own box, on a compound state in a dashed
 *   "any substate" box inside it (Mermaid allows no text lines on a
 *   composite, and draws self-arrows on nested composites badly);
 * - transitions of the machine root, which has no box of its own, start from
 *   an "any state" box.
 *
 * Mermaid fails to lay out arrows that start or end on a composite state
 * inside a parallel state (mermaid-js/mermaid#4052), so there such arrows
 * start from the composite's "any substate" box and end on its initial state.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { createMermaidIds, mermaidText } from './mermaid-syntax.js';
import { transitionLabel } from './transition-labels.js';

export interface MermaidOptions {
  /** Lines written as `%%` comments under the `stateDiagram-v2` line. */
  comments?: readonly string[];
}

/** A box listing what a composite state (or the root) handles whatever its substate. */
interface HandlerBox {
  id: string;
  label: string;
  /** The block the box is declared in: a compound state, or the root for the top level. */
  container: AnyStateNode;
  lines: string[];
}

interface Arrow {
  /** The block the arrow is written in: the compound state holding both ends, or the root. */
  scope: AnyStateNode;
  from: string;
  to: string;
  label: string;
}

/** Where an arrow starts or ends: a Mermaid id and the block that declares it. */
interface Endpoint {
  id: string;
  container: AnyStateNode;
}

const INDENT = '  ';
const HANDLER_BOX_CLASS = 'handlers';

export function machineToMermaid(machine: AnyStateMachine, options: MermaidOptions = {}): string {
  return new DiagramBuilder(machine).render(options.comments ?? []);
}

class DiagramBuilder {
  private readonly machineId: string;
  private readonly root: AnyStateNode;
  private readonly ids = createMermaidIds();
  private readonly stateIds = new Map<AnyStateNode, string>();
  private readonly internalLines = new Map<AnyStateNode, string[]>();
  private readonly boxes = new Map<AnyStateNode, HandlerBox>();
  private readonly arrows: Arrow[] = [];
  private readonly arrowKeys = new Set<string>();

  constructor(machine: AnyStateMachine) {
    this.machineId = machine.id;
    this.root = machine.root;
    const nodes = descendants(this.root);
    // Every state gets its id before any handler box, so a box never takes a state's readable id.
    if (this.root.type === 'parallel') this.stateIds.set(this.root, this.ids.allocate([this.machineId]));
    for (const node of nodes) this.stateIds.set(node, this.ids.allocate([this.machineId, ...node.path]));
    for (const node of [this.root, ...nodes]) this.collectTransitions(node);
  }

  render(comments: readonly string[]): string {
    const lines = ['stateDiagram-v2', ...comments.map((c) => `${INDENT}%% ${c.replace(/\n/g, ' ')}`)];
    const body: string[] = [];
    if (this.root.type === 'parallel') {
      body.push(`[*] --> ${this.idOf(this.root)}`, ...this.parallelBlock(this.root, this.machineId));
    } else {
      const initial = initialChild(this.root);
      if (initial) body.push(`[*] --> ${this.idOf(initial)}`);
      for (const child of children(this.root)) body.push(...this.stateDeclaration(child));
    }
    body.push(...this.blockContents(this.root));
    if (this.boxes.size > 0) body.push(`classDef ${HANDLER_BOX_CLASS} stroke-dasharray: 4 4`);
    for (const box of this.boxes.values()) body.push(`class ${box.id} ${HANDLER_BOX_CLASS}`);
    lines.push(...body.map((line) => INDENT + line));
    return `${lines.join('\n')}\n`;
  }

  private collectTransitions(node: AnyStateNode): void {
    for (const transition of ownTransitions(node)) {
      const label = transitionLabel(transition);
      const targets = transition.target ?? [];
      if (targets.length === 0) this.addInternal(node, label);
      for (const target of targets) {
        if (target === node && this.isStateBox(node)) {
          this.addArrow(this.stateEndpoint(node), this.stateEndpoint(node), label);
        } else if (target === node) {
          this.addInternal(node, `${label} (re-enters)`);
        } else {
          this.addArrow(this.sourceEndpoint(node), this.stateEndpoint(this.drawnTarget(target)), label);
        }
      }
    }
  }

  private addInternal(node: AnyStateNode, label: string): void {
    const lines = this.isStateBox(node) ? this.linesOf(node) : this.boxOf(node).lines;
    if (!lines.includes(label)) lines.push(label);
  }

  /** An atomic state is a plain box that can hold text lines and loops; the root (even without states) is not. */
  private isStateBox(node: AnyStateNode): boolean {
    return isAtomic(node) && node !== this.root;
  }

  private linesOf(node: AnyStateNode): string[] {
    let lines = this.internalLines.get(node);
    if (!lines) {
      lines = [];
      this.internalLines.set(node, lines);
    }
    return lines;
  }

  private boxOf(node: AnyStateNode): HandlerBox {
    let box = this.boxes.get(node);
    if (!box) {
      const inside = node.type === 'compound' && node !== this.root;
      box = {
        id: this.ids.allocate([this.machineId, ...node.path, 'any']),
        label: node === this.root ? 'any state' : inside ? 'any substate' : `any state of ${node.key}`,
        container: inside ? node : this.root,
        lines: [],
      };
      this.boxes.set(node, box);
    }
    return box;
  }

  private sourceEndpoint(node: AnyStateNode): Endpoint {
    const fromBox = node === this.root || (!isAtomic(node) && hasParallelAncestor(node));
    if (!fromBox) return this.stateEndpoint(node);
    const box = this.boxOf(node);
    return { id: box.id, container: box.container };
  }

  /**
   * Where an arrow into `target` ends: where the machine actually enters it
   * when it has no Mermaid state to end on (the root, unless parallel) or
   * Mermaid cannot end an arrow on it (a composite inside a parallel state, #4052).
   */
  private drawnTarget(target: AnyStateNode): AnyStateNode {
    let node = target;
    while (
      !isAtomic(node) &&
      (hasParallelAncestor(node) || (node === this.root && node.type !== 'parallel'))
    ) {
      const next = initialChild(node) ?? children(node)[0];
      if (!next) break;
      node = next;
    }
    return node;
  }

  private stateEndpoint(node: AnyStateNode): Endpoint {
    return { id: this.idOf(node), container: node.parent ?? this.root };
  }

  private addArrow(from: Endpoint, to: Endpoint, label: string): void {
    // Inside a composite block only when both ends are its direct children: Mermaid re-parents a state to the block it is last mentioned in.
    const shared = from.container === to.container && from.container.type === 'compound';
    const scope = shared ? from.container : this.root;
    const key = [this.idOf(scope), from.id, to.id, label].join('\u0000');
    if (this.arrowKeys.has(key)) return;
    this.arrowKeys.add(key);
    this.arrows.push({ scope, from: from.id, to: to.id, label });
  }

  private idOf(node: AnyStateNode): string {
    // The root has no Mermaid state unless it is parallel; it stands for the top level.
    return this.stateIds.get(node) ?? 'root';
  }

  private stateDeclaration(node: AnyStateNode): string[] {
    const head = `state "${mermaidText(stateLabel(node))}" as ${this.idOf(node)}`;
    if (node.type === 'compound') {
      const initial = initialChild(node);
      return [
        `${head} {`,
        ...indent([
          ...(initial ? [`[*] --> ${this.idOf(initial)}`] : []),
          ...children(node).flatMap((child) => this.stateDeclaration(child)),
          ...this.blockContents(node),
        ]),
        '}',
      ];
    }
    if (node.type === 'parallel') return this.parallelBlock(node, node.key);
    const lines = this.internalLines.get(node) ?? [];
    return [head, ...lines.map((line) => `${this.idOf(node)} : ${mermaidText(line)}`)];
  }

  private parallelBlock(node: AnyStateNode, label: string): string[] {
    const regions = children(node).map((region) => this.stateDeclaration(region));
    const body = regions.flatMap((region, i) => (i === 0 ? region : ['--', ...region]));
    return [`state "${mermaidText(label)}" as ${this.idOf(node)} {`, ...indent(body), '}'];
  }

  /** What a block holds besides its states: handler boxes, arrows, and arrows to `[*]` from final states. */
  private blockContents(container: AnyStateNode): string[] {
    const lines: string[] = [];
    for (const box of this.boxes.values()) {
      if (box.container !== container) continue;
      lines.push(`state "${mermaidText(box.label)}" as ${box.id}`);
      lines.push(...box.lines.map((line) => `${box.id} : ${mermaidText(line)}`));
    }
    for (const arrow of this.arrows) {
      if (arrow.scope === container)
        lines.push(`${arrow.from} --> ${arrow.to} : ${mermaidText(arrow.label)}`);
    }
    if (container.type !== 'parallel') {
      for (const child of children(container)) {
        if (child.type === 'final') lines.push(`${this.idOf(child)} --> [*]`);
      }
    }
    return lines;
  }
}

function ownTransitions(node: AnyStateNode): AnyTransitionDefinition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

function children(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states) as AnyStateNode[];
}

function descendants(node: AnyStateNode): AnyStateNode[] {
  return children(node).flatMap((child) => [child, ...descendants(child)]);
}

function initialChild(node: AnyStateNode): AnyStateNode | undefined {
  return node.type === 'compound' ? node.initial?.target[0] : undefined;
}

function isAtomic(node: AnyStateNode): boolean {
  return node.type !== 'compound' && node.type !== 'parallel';
}

function hasParallelAncestor(node: AnyStateNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'parallel') return true;
  return false;
}

function stateLabel(node: AnyStateNode): string {
  if (node.type === 'history') return node.history === 'deep' ? 'H*' : 'H';
  return node.key;
}

function indent(lines: string[]): string[] {
  return lines.map((line) => INDENT + line);
}
