/** The Google Chat surface (googleapis Chat v1) against the ChatSurface contract, on the Google Chat emulator. */
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { describeSurfaceContract, onEmulator } from '../contract.js';
import { SPACE, SPACE_NAME, startSurfaceHarness } from './harness.js';

describeSurfaceContract('gchat (googleapis on the emulator)', async () =>
  onEmulator(await startSurfaceHarness(), {
    space: SPACE,
    id: SPACE_NAME,
    surfaceAt: (url) => createGchatSurface({ apiUrl: url, requestTimeoutMs: 50 }),
  }),
);
