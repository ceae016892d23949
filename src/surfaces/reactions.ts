/**
 * The reactions a turn leaves on the person's message (issue 26): 👀 while
 * it runs, then how it ended. Unicode on every platform: each surface names
 * them its own way (Slack `eyes`, `white_check_mark`, `x`,
 * `black_square_for_stop`).
 */
export const WORKING_REACTION = '👀';

export const OUTCOME_REACTIONS: Readonly<Record<'ok' | 'error' | 'stopped', string>> = {
  ok: '✅',
  error: '❌',
  stopped: '⏹️',
};
