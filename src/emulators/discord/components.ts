/**
 * Message components as Discord checks them (discord-api-docs, Components →
 * Reference): legacy messages take up to 5 Action Rows of buttons; with
 * `IS_COMPONENTS_V2` a message is made only of components — Container,
 * Text Display, Separator, Section, Action Row, Button — at most 40 of them
 * in all (nested ones count) and 4,000 characters of Text Display text, and
 * `content`/`embeds` must be empty. Every problem is a {@link FormIssue} so the
 * answer is one 50035 naming each bad field, as Discord does.
 */
import { type FormIssue, formIssue } from './form-errors.js';

export const ComponentType = {
  ActionRow: 1,
  Button: 2,
  Section: 9,
  TextDisplay: 10,
  Thumbnail: 11,
  Separator: 14,
  Container: 17,
} as const;

export const MAX_V2_COMPONENTS = 40;
export const MAX_V2_TEXT_CHARS = 4000;
export const MAX_LEGACY_ACTION_ROWS = 5;
export const MAX_BUTTONS_PER_ROW = 5;
export const MAX_CUSTOM_ID_CHARS = 100;
export const MAX_BUTTON_LABEL_CHARS = 80;

type Path = FormIssue['path'];
type Fields = Record<string, unknown>;

const isDict = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const chars = (text: string) => [...text].length;

const V2_ONLY: ReadonlySet<number> = new Set([
  ComponentType.Section,
  ComponentType.TextDisplay,
  ComponentType.Separator,
  ComponentType.Container,
]);

/** What may sit where: the top level (legacy or V2), inside a Container, inside an Action Row. */
const ALLOWED_IN = {
  legacyTop: new Set<number>([ComponentType.ActionRow]),
  v2Top: new Set<number>([
    ComponentType.ActionRow,
    ComponentType.Section,
    ComponentType.TextDisplay,
    ComponentType.Separator,
    ComponentType.Container,
  ]),
  container: new Set<number>([
    ComponentType.ActionRow,
    ComponentType.Section,
    ComponentType.TextDisplay,
    ComponentType.Separator,
  ]),
  actionRow: new Set<number>([ComponentType.Button]),
  section: new Set<number>([ComponentType.TextDisplay]),
} as const;

const issue = (path: Path, code: string, message: string): FormIssue => ({ path, code, message });

interface Walk {
  issues: FormIssue[];
  count: number;
  textChars: number;
  customIds: Set<string>;
}

function readList(value: unknown, path: Path, walk: Walk, opts: { min: number; max: number }): unknown[] {
  if (!Array.isArray(value)) {
    walk.issues.push(value === undefined ? formIssue.required(path) : formIssue.notList(path));
    return [];
  }
  if (value.length < opts.min || value.length > opts.max) {
    walk.issues.push(formIssue.badLength(path, opts.min, opts.max));
  }
  return value;
}

function checkButton(button: Fields, path: Path, walk: Walk): void {
  const style = button.style;
  if (!Number.isInteger(style) || (style as number) < 1 || (style as number) > 5) {
    walk.issues.push(formIssue.notInEnum([...path, 'style'], style));
  }
  if (button.label !== undefined) {
    if (typeof button.label !== 'string')
      walk.issues.push(formIssue.notString([...path, 'label'], button.label));
    else if (chars(button.label) > MAX_BUTTON_LABEL_CHARS) {
      walk.issues.push(formIssue.maxLength([...path, 'label'], MAX_BUTTON_LABEL_CHARS));
    }
  }
  if (style === 5) {
    if (typeof button.url !== 'string') walk.issues.push(formIssue.required([...path, 'url']));
    return;
  }
  const customId = button.custom_id;
  if (typeof customId !== 'string') {
    walk.issues.push(formIssue.required([...path, 'custom_id']));
    return;
  }
  if (chars(customId) < 1 || chars(customId) > MAX_CUSTOM_ID_CHARS) {
    walk.issues.push(formIssue.badLength([...path, 'custom_id'], 1, MAX_CUSTOM_ID_CHARS));
  }
  if (walk.customIds.has(customId)) {
    walk.issues.push(
      issue(
        [...path, 'custom_id'],
        'COMPONENT_CUSTOM_ID_DUPLICATED',
        'Component custom id cannot be duplicated',
      ),
    );
  }
  walk.customIds.add(customId);
}

function checkComponent(value: unknown, path: Path, allowed: ReadonlySet<number>, walk: Walk): void {
  if (!isDict(value)) {
    walk.issues.push(formIssue.notDict(path));
    return;
  }
  walk.count += 1;
  const type = value.type;
  if (typeof type !== 'number' || !allowed.has(type)) {
    walk.issues.push(
      issue(
        [...path, 'type'],
        'UNION_TYPE_CHOICES',
        `Value of field "type" must be one of (${[...allowed].join(', ')}).`,
      ),
    );
    return;
  }
  switch (type) {
    case ComponentType.ActionRow: {
      const buttons = readList(value.components, [...path, 'components'], walk, {
        min: 1,
        max: MAX_BUTTONS_PER_ROW,
      });
      buttons.forEach((button, index) => {
        checkComponent(button, [...path, 'components', index], ALLOWED_IN.actionRow, walk);
        if (isDict(button) && button.type === ComponentType.Button)
          checkButton(button, [...path, 'components', index], walk);
      });
      return;
    }
    case ComponentType.TextDisplay: {
      if (typeof value.content !== 'string') {
        walk.issues.push(formIssue.notString([...path, 'content'], value.content));
        return;
      }
      if (chars(value.content) < 1)
        walk.issues.push(formIssue.badLength([...path, 'content'], 1, MAX_V2_TEXT_CHARS));
      walk.textChars += chars(value.content);
      return;
    }
    case ComponentType.Separator: {
      if (value.spacing !== undefined && value.spacing !== 1 && value.spacing !== 2) {
        walk.issues.push(formIssue.notInEnum([...path, 'spacing'], value.spacing));
      }
      return;
    }
    case ComponentType.Container: {
      const color = value.accent_color;
      if (
        color !== undefined &&
        color !== null &&
        !(Number.isInteger(color) && (color as number) >= 0 && (color as number) <= 0xffffff)
      ) {
        walk.issues.push(formIssue.notInt([...path, 'accent_color'], color));
      }
      const inner = readList(value.components, [...path, 'components'], walk, {
        min: 1,
        max: MAX_V2_COMPONENTS,
      });
      inner.forEach((child, index) => {
        checkComponent(child, [...path, 'components', index], ALLOWED_IN.container, walk);
      });
      return;
    }
    case ComponentType.Section: {
      const texts = readList(value.components, [...path, 'components'], walk, { min: 1, max: 3 });
      texts.forEach((child, index) => {
        checkComponent(child, [...path, 'components', index], ALLOWED_IN.section, walk);
      });
      if (!isDict(value.accessory)) walk.issues.push(formIssue.required([...path, 'accessory']));
      else {
        walk.count += 1;
        if (value.accessory.type === ComponentType.Button)
          checkButton(value.accessory, [...path, 'accessory'], walk);
      }
      return;
    }
    case ComponentType.Button:
      // Checked by the Action Row that holds it (for its custom id and style).
      return;
  }
}

export interface ParsedComponents {
  components: Fields[];
  /** Components in all, nested ones counted. */
  count: number;
  /** Characters of Text Display text in all. */
  textChars: number;
}

/**
 * Reads `components` of a create or an edit: absent → undefined, `null` → none.
 * `v2`: the message is (or becomes) a Components V2 message.
 */
export function readComponents(
  value: unknown,
  v2: boolean,
  issues: FormIssue[],
): ParsedComponents | undefined {
  if (value === undefined) return undefined;
  if (value === null) return { components: [], count: 0, textChars: 0 };
  const walk: Walk = { issues: [], count: 0, textChars: 0, customIds: new Set() };
  const path = ['components'];
  const top = readList(value, path, walk, { min: 0, max: v2 ? MAX_V2_COMPONENTS : MAX_LEGACY_ACTION_ROWS });
  top.forEach((component, index) => {
    if (!v2 && isDict(component) && typeof component.type === 'number' && V2_ONLY.has(component.type)) {
      walk.issues.push(
        issue(
          [...path, index, 'type'],
          'UNION_TYPE_CHOICES',
          'Value of field "type" must be one of (1); other component types need the IS_COMPONENTS_V2 message flag.',
        ),
      );
      return;
    }
    checkComponent(component, [...path, index], v2 ? ALLOWED_IN.v2Top : ALLOWED_IN.legacyTop, walk);
  });
  if (v2 && walk.count > MAX_V2_COMPONENTS) {
    walk.issues.push(
      issue(
        path,
        'BASE_TYPE_MAX_LENGTH',
        `A message can have at most ${MAX_V2_COMPONENTS} components (has ${walk.count}).`,
      ),
    );
  }
  if (walk.textChars > MAX_V2_TEXT_CHARS) {
    walk.issues.push(
      issue(
        path,
        'MAX_TOTAL_TEXT_LENGTH_EXCEEDED',
        `The total text of a message's components must be ${MAX_V2_TEXT_CHARS} or fewer characters (has ${walk.textChars}).`,
      ),
    );
  }
  issues.push(...walk.issues);
  return { components: top.filter(isDict), count: walk.count, textChars: walk.textChars };
}

/** `content`/`embeds` on a Components V2 message: refused as Discord refuses them. */
export function legacyFieldIssues(fields: { content: string; embeds: number }): FormIssue[] {
  const issues: FormIssue[] = [];
  const code = 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2';
  const message = "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2";
  if (fields.content !== '') issues.push(issue(['content'], code, message));
  if (fields.embeds > 0) issues.push(issue(['embeds'], code, message));
  return issues;
}

/** What a person sees of components: each Text Display's text, in order. */
export function componentText(components: readonly unknown[]): string[] {
  const texts: string[] = [];
  for (const component of components) {
    if (!isDict(component)) continue;
    if (component.type === ComponentType.TextDisplay && typeof component.content === 'string')
      texts.push(component.content);
    if (Array.isArray(component.components)) texts.push(...componentText(component.components));
  }
  return texts;
}

/**
 * The buttons a person can press: `{action: custom_id, label}` in order. Link
 * buttons send no action: only with `withLinks` (the messages view), as
 * `{action: '', label, url}`.
 */
export function componentButtons(
  components: readonly unknown[],
  { withLinks = false }: { withLinks?: boolean } = {},
): { action: string; label: string; url?: string }[] {
  const buttons: { action: string; label: string; url?: string }[] = [];
  const visit = (component: unknown) => {
    if (!isDict(component)) return;
    const label = typeof component.label === 'string' ? component.label : '';
    if (component.type === ComponentType.Button && typeof component.custom_id === 'string') {
      buttons.push({ action: component.custom_id, label });
    } else if (withLinks && component.type === ComponentType.Button && typeof component.url === 'string') {
      buttons.push({ action: '', label, url: component.url });
    }
    if (Array.isArray(component.components)) component.components.forEach(visit);
    if (component.accessory) visit(component.accessory);
  };
  components.forEach(visit);
  return buttons;
}
