/**
 * The edit budget's math (docs/architecture.md item 8), over plain JSON: each
 * function takes a `BudgetState` and an explicit `now`, updates the state in
 * place and returns it with its decision. In place because the registry of
 * live cards is large (one entry per live turn) and a copy per request made
 * every request O(n) (docs/benchmarks.md, "the budget at scale"); the state
 * stays JSON, so `cloneBudgetState` gives an independent copy where a caller
 * branches from one state.
 *
 * - A token bucket (`config.ts` explains its rate and capacity). Terminal
 *   frames may take it negative: the frame is booked for the time the debt is
 *   repaid, and counts against the cap until it goes out, so a frame waiting
 *   on its channel never lets the bucket hold more than its capacity.
 * - Progress frames take a token only while the reserve stays in the bucket
 *   (a debt for a terminal booking keeps it short), the card is within its
 *   fair share, its channel is clear, and the platform is not cooling off. A
 *   booking waiting only for its own channel holds its token already and
 *   holds back no other channel (issue 24 item 2); a post may use the reserve
 *   (never debt) rather than queue behind the line. The fair share is
 *   the card's turn at the scarcer of two things: the progress rate split
 *   across all live cards, and its channel's slots (one per spacing) split
 *   across the live cards in that channel — without the second, when tokens
 *   are plentiful the card that asks first after the channel frees wins every
 *   time and its neighbours never paint.
 * - What stands in one card's way (its fair share, its channel, a cool-off) is
 *   a refusal that says exactly when to ask again. What stands in everyone's
 *   way (the reserve, a debt for a terminal booking) puts the card in a line instead:
 *   `wakeLine` answers the line in order when tokens are there, so no card
 *   polls for a token that the next asker would take first.
 * - A clock that goes backwards neither refills nor drains: the bucket keeps
 *   the latest time it has seen as its reference and judges everything at it.
 * - A write kind the platform limits apart from its edits (`config.separate`:
 *   Slack's `chat.postMessage`, `assistant.threads.setStatus`,
 *   `reactions.add`) takes no token: it goes when its channel is clear (if it
 *   is spaced), no cool-off runs and its own limit (a log of its writes in
 *   the last window) has room. It never waits in the line and never leaves
 *   the edits short; a booked one still goes before progress frames.
 * - With `config.windowLog` (Slack) the bucket refills at the whole
 *   allowance, and a log of its writes (`sent`: grants, and terminal frames
 *   at their funding time) keeps every window within the allowance: a write
 *   that would be one too many waits until the window's oldest has left.
 *
 * One module per job: state.ts (the state and its refill), window-log.ts,
 * waits.ts (what stands in a write's way), progress.ts, terminal.ts (and
 * 429s), queued.ts. This module gathers their public names.
 */
export * from './progress.js';
export * from './queued.js';
export * from './state.js';
export * from './terminal.js';
