/**
 * Which action a card button stands for, read the way a tester picks a
 * button in the emulator (`POST /_emulator/click` with `action`). The
 * emulator's own reading of the card, not the intake's: it stands in for the
 * person who clicks, so it must not borrow the code it checks. The buttons
 * follow docs/platforms.md: a function in the `turnlog.` namespace whose
 * `action` parameter names the action, or a policy button whose `decision`
 * parameter is `approved` / `rejected`.
 */
const DECISION_ACTIONS: Readonly<Record<string, string>> = { approved: 'approve', rejected: 'reject' };

export function actionOfButton(
  invokedFunction: string | undefined,
  parameters: Readonly<Record<string, string>>,
): string | undefined {
  if (invokedFunction === undefined || !invokedFunction.startsWith('turnlog.')) return undefined;
  if (parameters.action) return parameters.action;
  const decision = parameters.decision;
  if (invokedFunction !== 'turnlog.policyDecision' || decision === undefined) return undefined;
  return DECISION_ACTIONS[decision];
}
