/** The Slack surface (@slack/web-api WebClient) against the ChatSurface contract, on the Slack emulator. */
import { createSlackSurface } from '../../../src/platforms/slack/surface.js';
import { describeSurfaceContract, silentServer } from '../../surfaces/contract.js';
import { CHANNEL, SPACE, startSlackHarness, TOKEN } from './harness.js';

describeSurfaceContract('slack (@slack/web-api on the emulator)', async () => {
  const h = await startSlackHarness();
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  return {
    surface: h.surface,
    space: SPACE,
    fault: (rule) => h.faults([rule]),
    personPosts: (text) => h.personPosts(`person: ${text}`),
    personDeletes: (messageId) => h.personDeletes(messageId),
    calls: async () => h.calls(),
    messages: async () => h.emulator.state.messages(CHANNEL),
    unanswered: async () => {
      silent = await silentServer();
      return createSlackSurface({ token: TOKEN, apiUrl: silent.url, requestTimeoutMs: 50 });
    },
    close: async () => {
      await silent?.close();
      await h.close();
    },
  };
});
