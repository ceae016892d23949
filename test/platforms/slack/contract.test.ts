/** The Slack surface (@slack/web-api WebClient) against the ChatSurface contract, on the Slack emulator. */
import { createServer, type Server } from 'node:http';
import { createSlackSurface } from '../../../src/platforms/slack/surface.js';
import { describeSurfaceContract } from '../../surfaces/contract.js';
import { CHANNEL, SPACE, startSlackHarness, TOKEN } from './harness.js';

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
