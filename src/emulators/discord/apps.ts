/**
 * The bot users calling the emulator: one per `Authorization` value, so two
 * clients with different tokens are two apps and neither may edit the
 * other's messages (50005), as on Discord.
 */

export interface BotUser {
  id: string;
  username: string;
}

export interface AppDirectory {
  /** The bot user behind this `Authorization` header (created on first use; `anonymous` without one). */
  botFor(authorization: string | undefined): BotUser;
  isBot(userId: string): boolean;
}

export function createAppDirectory(newId: () => string): AppDirectory {
  const byToken = new Map<string, BotUser>();
  const botIds = new Set<string>();
  return {
    botFor(authorization) {
      const key = authorization ?? 'anonymous';
      let bot = byToken.get(key);
      if (!bot) {
        bot = {
          id: newId(),
          username: byToken.size === 0 ? 'turnlog-bot' : `turnlog-bot-${byToken.size + 1}`,
        };
        byToken.set(key, bot);
        botIds.add(bot.id);
      }
      return bot;
    },
    isBot: (userId) => botIds.has(userId),
  };
}
