/** The Discord surface (@discordjs/rest, no queueing of 429s) against the ChatSurface contract, on the Discord emulator. */
import { createDiscordSurface } from '../../../src/platforms/discord/index.js';
import { asSeen } from '../../emulators/inspection.js';
import { describeSurfaceContract, onEmulator } from '../../surfaces/contract.js';
import { CHANNEL, SPACE, startDiscordSurfaceHarness } from './harness.js';

describeSurfaceContract('discord (@discordjs/rest on the emulator)', async () =>
  onEmulator(await startDiscordSurfaceHarness(), {
    space: SPACE,
    id: CHANNEL,
    // A Components V2 message has no content: a person reads its Text Displays (the view's card text).
    seen: asSeen,
    surfaceAt: (url) => createDiscordSurface({ token: 'test-bot-token', apiUrl: url, requestTimeoutMs: 50 }),
  }),
);
