/** The Slack surface (@slack/web-api WebClient) against the ChatSurface contract, on the Slack emulator. */
import { createSlackSurface } from '../../../src/platforms/slack/surface.js';
import { describeSurfaceContract, onEmulator } from '../../surfaces/contract.js';
import { CHANNEL, SPACE, startSlackHarness, TOKEN } from './harness.js';

describeSurfaceContract('slack (@slack/web-api on the emulator)', async () =>
  onEmulator(await startSlackHarness(), {
    space: SPACE,
    id: CHANNEL,
    surfaceAt: (url) => createSlackSurface({ token: TOKEN, apiUrl: url, requestTimeoutMs: 50 }),
  }),
);
