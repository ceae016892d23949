/** `auth.test`: who the token is. Bolt calls it on start to learn its bot ids. */
import { TEAM_ID, TEAM_NAME, TEAM_URL } from '../ids.js';
import type { SlackMethod } from '../slack-call.js';

export const authTest: SlackMethod = () => ({
  op: 'other',
  space: null,
  run: (app) => ({
    status: 200,
    body: {
      ok: true,
      url: TEAM_URL,
      team: TEAM_NAME,
      user: app.userName,
      team_id: TEAM_ID,
      user_id: app.userId,
      bot_id: app.botId,
      is_enterprise_install: false,
    },
  }),
});
