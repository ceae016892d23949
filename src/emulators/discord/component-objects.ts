/**
 * Components as Discord answers them (discord-api-docs, Components →
 * Reference; discord-api-spec's `*ComponentResponse` schemas): every
 * component at every nesting level has an `id` — the one sent, else the next
 * free number counting from 1 in the order they appear — and the fields a
 * request may leave out come back with their defaults (a Container's
 * `spoiler` and `accent_color`, a Separator's `spacing` and `divider`).
 */
import { ComponentType } from './components.js';

type Component = Record<string, unknown>;

const isComponent = (value: unknown): value is Component =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every component in document order: each one, then what it holds, then its accessory. */
function walk(components: readonly unknown[], visit: (component: Component) => void): void {
  for (const component of components) {
    if (!isComponent(component)) continue;
    visit(component);
    if (Array.isArray(component.components)) walk(component.components, visit);
    if (isComponent(component.accessory)) walk([component.accessory], visit);
  }
}

function withDefaults(component: Component): Component {
  switch (component.type) {
    case ComponentType.Container:
      return { accent_color: null, spoiler: false, ...component };
    case ComponentType.Separator:
      return { spacing: 1, divider: true, ...component };
    default:
      return { ...component };
  }
}

/** A deep copy of the stored components as the API returns them. */
export function componentsJson(components: readonly unknown[]): Component[] {
  const taken = new Set<number>();
  walk(components, (c) => {
    if (typeof c.id === 'number') taken.add(c.id);
  });
  let next = 1;
  const numbered = new Map<Component, number>();
  walk(components, (c) => {
    if (typeof c.id === 'number') return;
    while (taken.has(next)) next += 1;
    numbered.set(c, next);
    taken.add(next);
  });
  const copy = (component: Component): Component => {
    const out = withDefaults(component);
    const id = numbered.get(component);
    if (id !== undefined) out.id = id;
    if (Array.isArray(component.components))
      out.components = component.components.filter(isComponent).map(copy);
    if (isComponent(component.accessory)) out.accessory = copy(component.accessory);
    return out;
  };
  return components.filter(isComponent).map(copy);
}
