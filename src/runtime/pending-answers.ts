/**
 * Answers not delivered yet, kept across a restart (docs/architecture.md,
 * "What survives a restart"). An accepted answer is saved as all its parts,
 * in the same store commit as the event that carried it; each part is
 * forgotten once the platform took it (or refused it for good). A restarted
 * process, or a space started again after it failed, posts the parts still
 * kept, in order, with the client ids they had: an idempotent create (Google
 * Chat `requestId`, Discord `nonce`) or the recorded ref of a post (Slack)
 * turns a part that landed just before the crash into no new message.
 *
 * The runtime keeps a copy of what it saved, by space, so a space that
 * failed resumes its answers without a store round trip.
 */
import { type DeliveryInput, partClientId } from '../../machines/delivery.machine.js';
import type { PendingAnswerPart, TurnlogStore } from '../store/store.js';
import { proseFrame } from '../surfaces/frame.js';

/** What a delivery and a space need: save an answer's parts, forget those done with. */
export interface PendingAnswerSink {
  /** An answer was accepted: all its parts are kept until each is posted. */
  save(parts: PendingAnswerPart[]): void;
  /** These parts of the answer `key` need no resending (posted, or refused for good). */
  forget(space: string, key: string, parts: readonly number[]): void;
}

export interface PendingAnswers extends PendingAnswerSink {
  /** The parts read from the store at start. */
  load(parts: readonly PendingAnswerPart[]): void;
  /** Spaces with parts kept. */
  spaces(): string[];
  /** The deliveries that post a space's kept parts, oldest answer first. */
  resumeIn(space: string): DeliveryInput[];
  /** How many parts of a turn's answers are kept: accepted, not yet posted nor refused for good. */
  pendingFor(turnId: string): number;
}

export function createPendingAnswers(
  store: Pick<TurnlogStore, 'saveAnswerParts' | 'forgetAnswerPart'>,
  /** Wraps each store call: reports a failure (at once or later) without throwing into the actors. */
  persist: (what: string, write: () => unknown) => void,
): PendingAnswers {
  /** By space, then `<key> <part>`; insertion order is the order saved. */
  const kept = new Map<string, Map<string, PendingAnswerPart>>();
  const id = (key: string, part: number) => `${key}\u0000${part}`;
  const keep = (part: PendingAnswerPart) => {
    const space = kept.get(part.space) ?? new Map<string, PendingAnswerPart>();
    kept.set(part.space, space);
    space.set(id(part.key, part.part), part);
  };

  return {
    load(parts) {
      for (const part of parts) keep(part);
    },
    save(parts) {
      if (parts.length === 0) return;
      for (const part of parts) keep(part);
      persist('saveAnswerParts', () => store.saveAnswerParts(parts));
    },
    forget(space, key, parts) {
      const own = kept.get(space);
      for (const part of parts) {
        if (!own?.delete(id(key, part))) continue;
        persist('forgetAnswerPart', () => store.forgetAnswerPart(space, key, part));
      }
      if (own?.size === 0) kept.delete(space);
    },
    spaces: () => [...kept.keys()],
    resumeIn(space) {
      return resumedDeliveries([...(kept.get(space)?.values() ?? [])]);
    },
    pendingFor(turnId) {
      let count = 0;
      for (const space of kept.values())
        for (const part of space.values()) if (part.turnId === turnId) count++;
      return count;
    },
  };
}

/**
 * The deliveries that post kept parts: one per answer (per run of
 * consecutive parts, should one be missing), its first kept part as the
 * request (silent unless it is part 0) and the rest as its continuation.
 */
export function resumedDeliveries(parts: readonly PendingAnswerPart[]): DeliveryInput[] {
  const byAnswer = new Map<string, PendingAnswerPart[]>();
  for (const part of parts) {
    const list = byAnswer.get(part.key);
    if (list) list.push(part);
    else byAnswer.set(part.key, [part]);
  }
  const deliveries: DeliveryInput[] = [];
  for (const [key, list] of byAnswer) {
    const sorted = [...list].sort((a, b) => a.part - b.part);
    let run: PendingAnswerPart[] = [];
    const flush = () => {
      const [first, ...rest] = run;
      if (first) deliveries.push(deliveryOf(key, first, rest));
      run = [];
    };
    for (const part of sorted) {
      const last = run.at(-1);
      if (last && part.part !== last.part + 1) flush();
      run.push(part);
    }
    flush();
  }
  return deliveries;
}

function deliveryOf(key: string, first: PendingAnswerPart, rest: PendingAnswerPart[]): DeliveryInput {
  return {
    purpose: 'answer',
    request: {
      space: first.space,
      frame: proseFrame(first.text),
      ...(first.thread ? { thread: first.thread } : {}),
      clientId: partClientId(key, first.part),
      ...(first.part > 0 ? { silent: true } : {}),
    },
    ...(rest.length > 0 ? { continuation: rest.map((part) => part.text) } : {}),
    ...(first.turnId !== undefined ? { turnId: first.turnId } : {}),
    firstPart: first.part,
    pendingKey: key,
  };
}
