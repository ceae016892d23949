/**
 * A turn that ended takes its buttons with it (docs/http-api.md (actions)): each of its
 * cards nobody decided (a policy request, a question) is edited to say so and
 * loses its buttons, through the space like any card outcome (so through the
 * platform's budget, as a normal write). The card is claimed for the ended
 * turn first, so it is closed once, also when the turn's end is told again;
 * a live log loses Stop with its final frame, so it is only claimed.
 */
import type { CardClaim, TurnlogStore } from '../store/store.js';
import type { CardOutcomeEvent } from './clicks.js';

/** The claim of a card closed because its turn ended (no person pressed it). */
export const TURN_ENDED_CLAIM = { user: { id: 'turnlog', name: 'turnlog' }, action: 'turn-ended' } as const;

/** What a card nobody decided says once its turn ended. */
export const ENDED_OUTCOME = '⌛ Not decided: the turn has ended';

export interface EndedCardsDeps {
  store: Pick<TurnlogStore, 'openCards' | 'claimCard'>;
  now: () => number;
  showOutcome: (space: string, event: CardOutcomeEvent) => void;
}

/** Closes the cards of a turn that ended; resolves once every one is claimed and its edit handed to its space. */
export function createEndedCards(deps: EndedCardsDeps): (turnId: string) => Promise<void> {
  return async (turnId) => {
    for (const card of await deps.store.openCards(turnId)) {
      const claim: CardClaim = { ...TURN_ENDED_CLAIM, at: deps.now() };
      const claimed = await deps.store.claimCard(card.space, card.messageId, claim);
      // A person's press that won meanwhile already changed the card.
      if (!claimed?.first || card.card === undefined) continue;
      deps.showOutcome(card.space, {
        type: 'space.cardOutcome',
        messageId: card.messageId,
        ...(card.threadId !== undefined ? { threadId: card.threadId } : {}),
        card: { ...card.card, actions: [], outcome: ENDED_OUTCOME },
      });
    }
  };
}
