/** The call log every emulator (and the memory surface) keeps: what `GET /_emulator/calls` returns. */
import type { CallOp, RecordedCall } from '../types.js';

/** What a platform knows about a call; the recorder adds `seq` and `at`. */
export interface CallDescription {
  method: string;
  path: string;
  op: CallOp;
  status: number;
  space?: string | null;
  thread?: string | null;
  messageId?: string | null;
  text?: string | null;
  notifies?: boolean;
  mentions?: string[];
  details?: Record<string, unknown>;
}

export interface CallRecorder {
  /** Appends a call, stamped with the next `seq` and the clock's `at`; returns the stored record. */
  record(call: CallDescription): RecordedCall;
  /** Calls in order; with `since`, only those with `seq > since` (for polling). */
  list(since?: number): RecordedCall[];
  /** Forgets the calls. `seq` keeps counting so a poller's `since` never skips new calls. */
  clear(): void;
}

export function createCallRecorder(now: () => number): CallRecorder {
  let calls: RecordedCall[] = [];
  let lastSeq = 0;
  return {
    record(call) {
      lastSeq += 1;
      const recorded: RecordedCall = {
        seq: lastSeq,
        at: now(),
        method: call.method,
        path: call.path,
        op: call.op,
        status: call.status,
        space: call.space ?? null,
        thread: call.thread ?? null,
        messageId: call.messageId ?? null,
        text: call.text ?? null,
        notifies: call.notifies ?? false,
        mentions: call.mentions ?? [],
        ...(call.details === undefined ? {} : { details: call.details }),
      };
      calls.push(recorded);
      return recorded;
    },
    list(since = 0) {
      return calls.filter((call) => call.seq > since).map((call) => structuredClone(call));
    },
    clear() {
      calls = [];
    },
  };
}
