/** The Google Chat surface (googleapis Chat v1) against the ChatSurface contract, on the Google Chat emulator. */
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { describeSurfaceContract, silentServer } from '../contract.js';
import { SPACE, SPACE_NAME, startSurfaceHarness } from './harness.js';

describeSurfaceContract('gchat (googleapis on the emulator)', async () => {
  const h = await startSurfaceHarness();
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  return {
    surface: h.surface,
    space: SPACE,
    fault: (rule) => h.faults([rule]),
    personPosts: (text) => h.personPosts(`person: ${text}`),
    personDeletes: (messageId) => h.personDeletes(messageId),
    calls: async () => h.calls(),
    messages: async () => h.emulator.state.messages(SPACE_NAME),
    unanswered: async () => {
      silent = await silentServer();
      return createGchatSurface({ apiUrl: silent.url, requestTimeoutMs: 50 });
    },
    close: async () => {
      await silent?.close();
      await h.close();
    },
  };
});
