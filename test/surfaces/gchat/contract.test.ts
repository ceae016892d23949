/** The Google Chat surface (googleapis Chat v1) against the ChatSurface contract, on the Google Chat emulator. */
import { createServer, type Server } from 'node:http';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { describeSurfaceContract } from '../contract.js';
import { SPACE, SPACE_NAME, startSurfaceHarness } from './harness.js';

/** A server that accepts requests and never answers. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
