/**
 * A budget actor's input (machines/budget.machine.ts): the validated numbers
 * and the empty state, made here so the machine imports only types and
 * xstate. Bad input is refused with an error naming the field.
 */
import type { BudgetMachineInput } from '../../machines/budget.machine.js';
import { createBudgetState } from './bucket.js';
import { type BudgetInput, resolveBudgetConfig } from './config.js';

/** A budget actor's input from the platform's numbers: validated (bad input throws, naming the field), with an empty state. */
export function budgetMachineInput(input: BudgetInput): BudgetMachineInput {
  const config = resolveBudgetConfig(input);
  return { config, budget: createBudgetState(config) };
}
