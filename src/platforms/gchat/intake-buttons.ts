/**
 * Reading a clicked button back: which `FrameAction.id` a Google Chat card
 * button stands for, from the `function` and `parameters` render.ts gave it
 * (`buttonParameters`). Chat hands them back on a CARD_CLICKED event as
 * `common.invokedFunction` / `common.parameters` (and, in the older shape,
 * `action.actionMethodName` / `action.parameters`).
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/Event
 */

/**
 * The `function` turnlog's buttons invoke: render.ts `POLICY_DECISION_ACTION`
 * (a test holds them equal). Repeated, not imported: the emulator reads
 * buttons back with this module, and render.ts would pull the platform
 * registry into the emulator's imports (an import cycle).
 */
export const TURNLOG_BUTTON_FUNCTION = 'turnlog.policyDecision';

/** A policy button's `decision` parameter → its action id: the inverse of render.ts `DECISIONS`. */
const ACTION_OF_DECISION: Readonly<Record<string, string>> = {
  approved: 'approve',
  rejected: 'reject',
};

/**
 * The action id a turnlog button carries, or undefined when the button is not
 * one turnlog rendered: the `action` parameter of a function in turnlog's
 * `turnlog.` namespace (questions, Stop), else a policy button's `decision`.
 */
export function gchatButtonActionId(
  invokedFunction: string | undefined,
  parameters: Readonly<Record<string, string>>,
): string | undefined {
  if (invokedFunction === undefined || !invokedFunction.startsWith('turnlog.')) return undefined;
  const action = parameters.action;
  if (action !== undefined && action !== '') return action;
  const decision = parameters.decision;
  if (invokedFunction !== TURNLOG_BUTTON_FUNCTION || decision === undefined) return undefined;
  return ACTION_OF_DECISION[decision];
}

/** `[{key, value}]` (a card's `parameters`, Chat's `action.parameters`) as a record; later keys win. */
export function parameterRecord(list: readonly { key?: unknown; value?: unknown }[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { key, value } of list) {
    if (typeof key === 'string' && typeof value === 'string') record[key] = value;
  }
  return record;
}
