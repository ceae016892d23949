/**
 * `apps.connections.open` (https://docs.slack.dev/reference/methods/apps.connections.open):
 * a Socket Mode WebSocket URL for the app whose app-level token (`xapp-…`)
 * calls it. A bot or user token is `not_allowed_token_type`; an app-level
 * token of no Socket Mode app registered here is `invalid_auth`
 * (socket-mode.ts).
 */
import { slackError } from '../errors.js';
import type { SlackMethod } from '../slack-call.js';

export const appsConnectionsOpen: SlackMethod = (call) => ({
  op: 'other',
  space: null,
  run() {
    const opened = call.slack.socketMode.open(call.args.token ?? '');
    if (!opened.ok) return slackError(opened.error);
    // The ticket in the URL is a credential of sorts: the record keeps only that a URL was handed out.
    return { status: 200, body: { ok: true, url: opened.url }, record: { details: { socketMode: true } } };
  },
});
