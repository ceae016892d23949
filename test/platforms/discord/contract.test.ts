/** The Discord surface (@discordjs/rest, no queueing of 429s) against the ChatSurface contract, on the Discord emulator. */
import { createDiscordSurface } from '../../../src/platforms/discord/index.js';
import { describeSurfaceContract, silentServer } from '../../surfaces/contract.js';
import { CHANNEL, SPACE, startDiscordSurfaceHarness } from './harness.js';

describeSurfaceContract('discord (@discordjs/rest on the emulator)', async () => {
  const h = await startDiscordSurfaceHarness();
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  return {
    surface: h.surface,
    space: SPACE,
    fault: (rule) => h.faults([rule]),
    personPosts: (text) => h.personPosts(`person: ${text}`),
    personDeletes: (messageId) => h.personDeletes(messageId),
    calls: async () => h.calls(),
    // A Components V2 message has no content: a person reads its Text Displays (the view's card text).
    messages: async () =>
      h.emulator.state.messages(CHANNEL).map((m) => ({
        ...m,
        text: [m.text, m.card?.text ?? ''].filter((part) => part !== '').join('\n'),
      })),
    unanswered: async () => {
      silent = await silentServer();
      return createDiscordSurface({ token: 'test-bot-token', apiUrl: silent.url, requestTimeoutMs: 50 });
    },
    close: async () => {
      await silent?.close();
      await h.close();
    },
  };
});
