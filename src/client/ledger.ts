/**
 * The book of what became of every event a client sent. An event the ingest
 * did not accept is kept until someone has seen it: `onRejected`, a
 * `flush()` report, or the error thrown by `end()`/`close()`.
 */
import type { EventNotAcceptedError } from './errors.js';
import type { DeliveryCounts, DeliveryReport } from './types.js';

export class DeliveryLedger {
  private readonly totals: DeliveryCounts = { sent: 0, accepted: 0, rejected: 0 };
  private acceptedSinceReport = 0;
  private rejectedSinceReport: EventNotAcceptedError[] = [];
  /** Not yet given to `onRejected`, a report or a thrown error. */
  private unseen: EventNotAcceptedError[] = [];

  constructor(private readonly onRejected?: (error: EventNotAcceptedError) => void) {}

  get counts(): Readonly<DeliveryCounts> {
    return { ...this.totals };
  }

  sent(count: number): void {
    this.totals.sent += count;
  }

  accepted(count: number): void {
    this.totals.accepted += count;
    this.acceptedSinceReport += count;
  }

  notAccepted(error: EventNotAcceptedError): void {
    this.totals.rejected += 1;
    this.rejectedSinceReport.push(error);
    if (!this.onRejected) {
      this.unseen.push(error);
      return;
    }
    try {
      this.onRejected(error);
    } catch {
      // A throwing callback has not shown the error to anyone: end()/close() still will.
      this.unseen.push(error);
    }
  }

  /** Everything settled since the previous report; what it lists counts as seen. */
  takeReport(): DeliveryReport {
    const report = { accepted: this.acceptedSinceReport, rejected: this.rejectedSinceReport };
    this.acceptedSinceReport = 0;
    this.rejectedSinceReport = [];
    this.unseen = [];
    return report;
  }

  /** The unseen errors (of one turn, when given), now seen by the caller. */
  takeUnseen(turnId?: string): EventNotAcceptedError[] {
    const taken = this.unseen.filter((e) => turnId === undefined || e.event.turnId === turnId);
    this.unseen = this.unseen.filter((e) => !taken.includes(e));
    return taken;
  }
}
