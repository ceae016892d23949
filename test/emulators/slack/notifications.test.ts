// spec: issue "Loopback emulators" — notification accounting on every recorded call (`notifies`: a new message
// notifies its conversation, a thread reply its participants, an edit never, a person's own message never) and
// `mentions` (broad and personal mentions that FIRED: `<!channel>`/`<@U…>` in text do, escaped forms and rich_text text elements
// never do, rich_text broadcast elements do). Proves the safe form turnlog sends never pings.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../../src/emulators/types.js';
import { personPosts, type SlackKit, startKit } from './slack-test-kit.js';

const CHANNEL = 'C0NOTIFY01';
const DM = 'D0NOTIFY01';

let kit: SlackKit;

beforeEach(async () => {
  kit = await startKit({ limits: [] });
});

afterEach(async () => {
  await kit.emulator.close();
});

const lastCall = (): RecordedCall => kit.emulator.state.calls().at(-1)!;

function richText(...elements: Record<string, unknown>[]) {
  return [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] }];
}

describe('Slack emulator: who a call notifies', () => {
  it('a person’s message notifies no one; the app’s top-level post notifies; its edit does not', async () => {
    await personPosts(kit.emulator, { space: CHANNEL, text: 'question' });
    const personCall = lastCall();
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'answer' });
    const postCall = lastCall();
    await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'better answer' });

    expect(personCall).toMatchObject({ op: 'inbound', notifies: false });
    expect(postCall).toMatchObject({ op: 'create', notifies: true, mentions: [] });
    expect(lastCall()).toMatchObject({ op: 'update', notifies: false, mentions: [] });
  });

  it('a reply under a person’s message notifies that person (a thread participant)', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'deploy?', user: 'U0ALICE001' });
    await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log', thread_ts: asked.threadId });

    expect(lastCall()).toMatchObject({
      notifies: true,
      details: { thread_ts: asked.threadId, threadParticipants: ['U0ALICE001'] },
    });
  });

  it('a reply in a thread only the app has posted in notifies no one, until a person joins it', async () => {
    const root = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'status' });
    await kit.client.chat.postMessage({ channel: CHANNEL, text: 'detail 1', thread_ts: root.ts! });
    const lonely = lastCall();
    await personPosts(kit.emulator, {
      space: CHANNEL,
      text: 'thanks',
      threadId: root.ts!,
      user: 'U0BOB00001',
    });
    await kit.client.chat.postMessage({ channel: CHANNEL, text: 'detail 2', thread_ts: root.ts! });

    expect(lonely).toMatchObject({ notifies: false, details: { threadParticipants: [] } });
    expect(lastCall()).toMatchObject({ notifies: true, details: { threadParticipants: ['U0BOB00001'] } });
  });

  it('a broadcast reply notifies the channel, and any new message in a DM notifies its person', async () => {
    const root = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'status' });
    await kit.client.chat.postMessage({
      channel: CHANNEL,
      text: 'done',
      thread_ts: root.ts!,
      reply_broadcast: true,
    });
    const broadcast = lastCall();
    const dmRoot = await kit.client.chat.postMessage({ channel: DM, text: 'hi' });
    await kit.client.chat.postMessage({ channel: DM, text: 'more', thread_ts: dmRoot.ts! });

    expect(broadcast).toMatchObject({ notifies: true, details: { reply_broadcast: true } });
    expect(lastCall()).toMatchObject({ notifies: true, details: { dm: true } });
  });

  it('a refused post notifies no one', async () => {
    await kit.client.chat.postMessage({ channel: CHANNEL, text: '' }).catch(() => undefined);
    expect(lastCall()).toMatchObject({ op: 'create', notifies: false, details: { error: 'no_text' } });
  });
});

describe('Slack emulator: which broad mentions fire', () => {
  const post = async (args: Record<string, unknown>): Promise<string[]> => {
    await kit.client.apiCall('chat.postMessage', { channel: CHANNEL, ...args });
    return lastCall().mentions;
  };

  it('fires <!channel>, <!here>, <!everyone> (also with a label) in text', async () => {
    expect(await post({ text: 'look <!channel> and <!here|here> and <!everyone>' })).toEqual([
      '<!channel>',
      '<!here>',
      '<!everyone>',
    ]);
    expect(lastCall().notifies).toBe(true);
  });

  it('does not fire the escaped form &lt;!channel&gt; or a bare @channel', async () => {
    expect(await post({ text: '&lt;!channel&gt; &lt;!here&gt; @channel @everyone' })).toEqual([]);
  });

  it('fires a bare @channel when the message asks Slack to link names (parse: full)', async () => {
    expect(await post({ text: 'hey @channel, mail me@here.com', parse: 'full' })).toEqual(['<!channel>']);
  });

  it('never fires inside rich_text text elements, but does for a broadcast element', async () => {
    expect(
      await post({ text: 'log', blocks: richText({ type: 'text', text: '<!channel> <!everyone> @here' }) }),
    ).toEqual([]);
    expect(await post({ text: 'log', blocks: richText({ type: 'broadcast', range: 'here' }) })).toEqual([
      '<!here>',
    ]);
  });

  it('fires in a mrkdwn section but not in a plain_text one', async () => {
    const section = (type: string) => [{ type: 'section', text: { type, text: 'all: <!everyone>' } }];
    expect(await post({ text: 'log', blocks: section('mrkdwn') })).toEqual(['<!everyone>']);
    expect(await post({ text: 'log', blocks: section('plain_text') })).toEqual([]);
  });

  it('records a broad mention an edit adds, though the edit itself notifies no one', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log <!here>' });
    await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'log <!here> <!channel>' });

    expect(lastCall()).toMatchObject({ op: 'update', notifies: false, mentions: ['<!channel>'] });
  });

  it('never pings for hostile text sent in turnlog’s safe form (escaped fallback + literal rich_text), post or edit', async () => {
    const hostile = 'tool said: <!channel> <!here|here> <!everyone> <!subteam^S123> @channel';
    const escaped = hostile.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'run it' });
    const posted = await kit.client.chat.postMessage({
      channel: CHANNEL,
      thread_ts: asked.threadId,
      text: escaped,
      blocks: richText({ type: 'text', text: hostile }),
    });
    await kit.client.chat.update({
      channel: CHANNEL,
      ts: posted.ts!,
      text: `${escaped} (2)`,
      blocks: richText({ type: 'text', text: `${hostile} (2)` }),
    });

    const appCalls = kit.emulator.state.calls().filter((call) => call.op !== 'inbound');
    expect(appCalls.map((call) => call.status)).toEqual([200, 200]);
    expect(appCalls.flatMap((call) => call.mentions)).toEqual([]);
    expect(kit.emulator.state.messages(CHANNEL).at(-1)?.text).toBe(`${hostile} (2)`);
  });
});

describe('Slack emulator: a person’s mention fires too (issue 11 item 6: real mention syntax only)', () => {
  const post = async (args: Record<string, unknown>): Promise<string[]> => {
    await kit.client.apiCall('chat.postMessage', { channel: CHANNEL, ...args });
    return lastCall().mentions;
  };

  it('fires <@U…> (also with a label) in mrkdwn text and sections, never its escaped form', async () => {
    expect(await post({ text: 'ask <@U0123ABCD> or <@W0ENTERPRISE|bob>' })).toEqual([
      '<@U0123ABCD>',
      '<@W0ENTERPRISE>',
    ]);
    expect(await post({ text: '&lt;@U0123ABCD&gt; @U0123ABCD' })).toEqual([]);
    const section = [{ type: 'section', text: { type: 'mrkdwn', text: 'cc <@U0SECTION1>' } }];
    expect(await post({ text: 'log', blocks: section })).toEqual(['<@U0SECTION1>']);
  });

  it('fires a rich_text user element, never a text element that looks like one', async () => {
    expect(await post({ text: 'log', blocks: richText({ type: 'text', text: '<@U0123ABCD>' }) })).toEqual([]);
    expect(await post({ text: 'log', blocks: richText({ type: 'user', user_id: 'U0123ABCD' }) })).toEqual([
      '<@U0123ABCD>',
    ]);
  });
});
