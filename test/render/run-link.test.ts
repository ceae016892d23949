/**
 * Issue 25.3: the "Full log" link a log frame carries, in each platform's own
 * form: Slack a mrkdwn link in a context block of the card, Google Chat a
 * `<url|Full log>` link in the text, Discord a link button (style Link, no
 * custom id) in the Components V2 container. The label is fixed text, never
 * a URL; and the same link on every frame of a turn.
 */
import { describe, expect, it } from 'vitest';
import { renderFrame as renderDiscord } from '../../src/platforms/discord/render.js';
import { renderGchatMessage } from '../../src/platforms/gchat/render.js';
import { renderFrame } from '../../src/platforms/slack/render.js';
import { RUN_LINK_LABEL, withRunLink } from '../../src/runtime/run-link.js';
import type { SurfaceFrame } from '../../src/surfaces/frame.js';

const URL_ = 'https://turnlog.example/runs/T%261?t=abc_DEF-123';
const frame: SurfaceFrame = {
  kind: 'log',
  headline: { state: 'done', title: 'Build', elapsedMs: 3000 },
  lines: [{ kind: 'tool', status: 'ok', depth: 0, time: '10:00:00', text: 'Bash(npm test)' }],
  link: { label: RUN_LINK_LABEL, url: URL_ },
};

describe('the run link in each renderer', () => {
  it('Slack: a link in a context block of the card, escaped', () => {
    const message = renderFrame(frame) as {
      blocks: { type: string; block_id?: string; elements?: { text: string }[] }[];
    };
    const block = message.blocks.find((b) => b.block_id === 'turnlog:run-link');
    expect(block?.type).toBe('context');
    expect(block?.elements?.[0]?.text).toBe('<https://turnlog.example/runs/T%261?t=abc_DEF-123|Full log>');
  });

  it('Google Chat: a link at the end of the log text', () => {
    const message = renderGchatMessage(frame) as { text: string };
    expect(message.text.split('\n').at(-1)).toBe(`<${URL_}|Full log>`);
  });

  it('Discord: a link button in the Components V2 container', () => {
    const body = renderDiscord(frame, { logStyle: 'components' }) as {
      components: { components: { type: number; components?: unknown[] }[] }[];
    };
    const row = body.components[0]?.components.find((c) => c.type === 1);
    expect(row?.components).toEqual([{ type: 2, style: 5, label: 'Full log', url: URL_ }]);
  });

  it('withRunLink adds the same link to every log frame of a turn, and nothing elsewhere', () => {
    const runLink = (turnId: string) => `https://x.example/runs/${turnId}?t=tok`;
    const log = { space: 's', frame: { kind: 'log', lines: [] } as SurfaceFrame };
    const once = withRunLink(log, 'T1', runLink);
    expect(once.frame).toEqual({
      kind: 'log',
      lines: [],
      link: { label: 'Full log', url: 'https://x.example/runs/T1?t=tok' },
    });
    expect(withRunLink(log, 'T1', runLink)).toEqual(once);
    expect(withRunLink(log, 'T1', undefined)).toBe(log);
    const prose = { space: 's', frame: { kind: 'prose', markdown: 'hi' } as SurfaceFrame };
    expect(withRunLink(prose, 'T1', runLink)).toBe(prose);
  });
});
