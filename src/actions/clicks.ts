/**
 * What a click on a button turnlog rendered means (docs/architecture.md,
 * "Cards and clicks"). The card registry in the store says what the message
 * is (a policy card, a question, a live log with Stop) and keeps the first
 * click: that one becomes an action for the host and changes the chat (the
 * card shows who decided and loses its buttons; the log shows "stopping…");
 * every later click, by the same person or another, is told what was decided.
 */
import { redactSecrets } from '../events/redact.js';
import { answerIndexOf } from '../runtime/cards.js';
import type { CardClaim, StoredCard, TurnlogStore } from '../store/store.js';
import type { FrameCard } from '../surfaces/frame.js';
import type { DeciderBook } from './deciders.js';
import type { ActionUser, ClickIntake, ClickResolver, NewAction } from './types.js';

/** The space machine's event for a decided card (machines/space.machine.ts). */
export interface CardOutcomeEvent {
  type: 'space.cardOutcome';
  messageId: string;
  threadId?: string;
  card: FrameCard;
}

export interface ClickResolverDeps {
  store: Pick<TurnlogStore, 'card' | 'claimCard'>;
  /** Epoch ms of the click's claim (the runtime clock). */
  now: () => number;
  /** Hands a space its card's new look (the runtime sends it to the space's actor). */
  showOutcome: (space: string, event: CardOutcomeEvent) => void;
  /** Is the turn still running here (Stop means nothing once it ended)? */
  isTurnLive: (turnId: string) => boolean;
  /** Tells a live turn a person asked it to stop (its log shows "stopping…"). */
  requestStop: (turnId: string, user: ActionUser) => void;
  /** Who may decide (src/actions/deciders.ts); without it, anyone. */
  deciders?: Pick<DeciderBook, 'mayDecide' | 'hasEnded'>;
}

/** What a late press is told (docs/http-api.md (actions): "this turn has ended"). */
export const endedText = (turnId: string): string =>
  `This turn has ended (${turnId}): this button no longer does anything.`;

const DECISIONS = { approve: 'approved', reject: 'rejected' } as const;
const DECISION_ICON = { approved: '✅', rejected: '❌' } as const;

/** How a person is named on a card: their display name, else their id; never a secret. */
export const personName = (user: ActionUser): string => redactSecrets(user.name?.trim() || user.id);

/** The buttons a kind of message has, for the text of an unknown action. */
function knownActions(card: StoredCard): string {
  if (card.kind === 'policy') return 'approve, reject';
  if (card.kind === 'log') return 'stop';
  return (card.options ?? []).map((_, index) => `answer:${index}`).join(', ');
}

/** The option an `answer:<index>` names on a question card; undefined when it names none. */
function optionOf(card: StoredCard, action: string) {
  const index = answerIndexOf(action);
  return index === undefined ? undefined : card.options?.[index];
}

function validAction(card: StoredCard, action: string): boolean {
  if (card.kind === 'policy') return action === 'approve' || action === 'reject';
  if (card.kind === 'log') return action === 'stop';
  return optionOf(card, action) !== undefined;
}

/** What the card says once decided: `✅ approved by Alice`, `✅ Fixing — chosen by Alice`. */
function outcomeOf(card: StoredCard, claim: CardClaim): string {
  const who = personName(claim.user);
  if (card.kind === 'policy') {
    const decision = DECISIONS[claim.action as keyof typeof DECISIONS];
    return `${DECISION_ICON[decision]} ${decision} by ${who}`;
  }
  if (card.kind === 'question') return `${optionOf(card, claim.action)?.selectedLabel} — chosen by ${who}`;
  return `⏹ stop asked by ${who}`;
}

/** What a later click is told. */
function alreadyText(card: StoredCard, claim: CardClaim): string {
  const who = personName(claim.user);
  if (card.kind === 'policy') {
    return `Already ${DECISIONS[claim.action as keyof typeof DECISIONS]} by ${who}.`;
  }
  if (card.kind === 'question') {
    return `Already answered: ${who} chose "${optionOf(card, claim.action)?.selectedLabel}".`;
  }
  return `${who} already asked this turn to stop.`;
}

function actionOf(card: StoredCard, click: ClickIntake, at: number): NewAction {
  const base = { space: click.space, at, user: click.user, turnId: card.turnId };
  if (card.kind === 'policy') {
    const decision = DECISIONS[click.action as keyof typeof DECISIONS];
    return { ...base, type: 'decision', requestId: card.cardId, decision };
  }
  if (card.kind === 'question') {
    const option = optionOf(card, click.action);
    return {
      ...base,
      type: 'answer',
      questionId: card.cardId,
      value: option?.value ?? '',
      label: option?.label ?? '',
    };
  }
  return { ...base, type: 'stop' };
}

export function createClickResolver(deps: ClickResolverDeps): ClickResolver {
  return async (click) => {
    const card = await deps.store.card(click.space, click.messageId);
    if (card === undefined) {
      return {
        status: 'unknown',
        text: `turnlog does not know message ${click.messageId} in ${click.space}: it is not a card or log turnlog posted (or it is too old)`,
      };
    }
    if (!validAction(card, click.action)) {
      return {
        status: 'unknown',
        text: `this ${card.kind === 'log' ? 'log' : `${card.kind} card`} has no button "${click.action}" (it has: ${knownActions(card)})`,
      };
    }
    // A card of an ended turn decides nothing, whoever presses and whatever was decided before.
    // A host's card outside any turn (the ChannelAdapter's ask_question without a turnId) has no turn to end.
    const ofTurn = card.turnId !== '';
    if (ofTurn && (!deps.isTurnLive(card.turnId) || deps.deciders?.hasEnded(card.turnId))) {
      return { status: 'refused', text: endedText(card.turnId) };
    }
    const verdict = await deps.deciders?.mayDecide(card.turnId, click.space, click.user);
    if (verdict?.allowed === false) return { status: 'refused', text: verdict.text };
    const at = deps.now();
    const claimed = await deps.store.claimCard(click.space, click.messageId, {
      user: click.user,
      action: click.action,
      at,
    });
    if (claimed === undefined) {
      return {
        status: 'unknown',
        text: `turnlog does not know message ${click.messageId} in ${click.space}`,
      };
    }
    if (!claimed.first) return { status: 'already-decided', text: alreadyText(card, claimed.claim) };
    const outcome = outcomeOf(card, claimed.claim);
    if (card.kind === 'log') deps.requestStop(card.turnId, click.user);
    else if (card.card !== undefined) {
      deps.showOutcome(click.space, {
        type: 'space.cardOutcome',
        messageId: card.messageId,
        ...(card.threadId !== undefined ? { threadId: card.threadId } : {}),
        card: { ...card.card, actions: [], outcome },
      });
    }
    return { status: 'accepted', action: actionOf(card, click, at), text: outcome };
  };
}
