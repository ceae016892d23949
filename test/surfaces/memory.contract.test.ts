/** The memory surface against the ChatSurface contract, as each built-in platform it stands in for. */
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { describeSurfaceContract } from './contract.js';

const SPACES = {
  gchat: 'gchat:spaces/AAAA',
  slack: 'slack:C0123ABCD',
  discord: 'discord:123456789012345678',
};

for (const [platform, space] of Object.entries(SPACES)) {
  describeSurfaceContract(
    `memory (${platform})`,
    async () => {
      const surface = createMemorySurface({ platform });
      const app = () => surface.calls.filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete');
      return {
        surface,
        space,
        fault: async (rule) => surface.fail(rule),
        personPosts: async (text) => surface.inbound({ space, text }),
        personDeletes: async (messageId) => surface.deleteMessage(messageId),
        calls: async () => app(),
        messages: async () => surface.messages(space),
        close: async () => {},
      };
    },
    // In process: nothing to time out.
    { timeouts: false },
  );
}
