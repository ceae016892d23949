/**
 * The demo's live view of the emulated spaces (Google Chat, Slack, Discord),
 * one section each: top-level messages
 * with their thread replies under them, refreshed twice a second, each
 * message showing how often it was edited, and a card with its title, text,
 * buttons and fallback text. Text is set with textContent, so nothing in a
 * message can run in the page. Above the spaces, each turn's run page link.
 */
import { createServer, type Server } from 'node:http';
import type { RunLink } from './run-links.js';

export function demoPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>turnlog demo — the spaces as a person sees them</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 52rem; color: #202124; }
  h1 { font-size: 1.2rem; }
  h2 { font-size: 1rem; margin-top: 1.6rem; border-bottom: 1px solid #dadce0; }
  .msg { border: 1px solid #dadce0; border-radius: 8px; padding: .6rem .8rem; margin: .6rem 0; background: #fff; }
  .thread { margin-left: 2rem; border-left: 3px solid #e8eaed; padding-left: .8rem; }
  .meta { color: #5f6368; font-size: 12px; margin-bottom: .3rem; }
  .text { white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 12.5px; }
  .edited { color: #1a73e8; }
  .card { border: 1px solid #dadce0; border-radius: 6px; padding: .5rem .7rem; margin-top: .3rem; background: #f8f9fa; }
  .card-title { font-weight: 600; }
  .buttons { margin-top: .4rem; display: flex; gap: .4rem; }
  .buttons button { font: inherit; border: 1px solid #1a73e8; color: #1a73e8; background: #fff; border-radius: 4px; padding: .15rem .6rem; }
  .fallback { color: #5f6368; font-size: 12px; margin-top: .3rem; }
</style>
</head>
<body>
<h1>turnlog demo — the spaces as a person sees them</h1>
<p class="meta">One activity-log message per turn, in the thread under the person's message, edited in place. Refreshes every 500 ms.</p>
<ul id="runs"></ul>
<div id="spaces"></div>
<script>
  // Each turn's run page (its full record); only http(s) links, built with DOM calls, never HTML.
  function renderRuns(runs) {
    const list = document.getElementById('runs');
    list.replaceChildren();
    for (const r of runs ?? []) {
      if (!/^https?:///.test(r.url)) continue;
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = r.url;
      link.textContent = 'Full log of turn ' + r.turnId;
      item.append(link);
      list.append(item);
    }
  }
  function renderAll(spaces) {
    const all = document.getElementById('spaces');
    all.replaceChildren();
    for (const s of spaces) {
      const heading = document.createElement('h2');
      heading.textContent = s.label + ' — ' + s.space;
      const space = document.createElement('div');
      render(space, s.messages);
      all.append(heading, space);
    }
  }
  // A thread is its first message (the root) and the replies after it.
  function render(space, messages) {
    const threads = new Map();
    for (const m of messages.filter((m) => !m.deleted)) {
      const key = m.thread ?? m.id;
      if (!threads.has(key)) threads.set(key, []);
      threads.get(key).push(m);
    }
    for (const [root, ...replies] of threads.values()) {
      space.append(card(root));
      if (replies.length === 0) continue;
      const thread = document.createElement('div');
      thread.className = 'thread';
      for (const reply of replies) thread.append(card(reply));
      space.append(thread);
    }
  }
  function card(m) {
    const el = document.createElement('div');
    el.className = 'msg';
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = m.id;
    if (m.edits > 0) {
      const edited = document.createElement('span');
      edited.className = 'edited';
      edited.textContent = '  · edited ' + m.edits + '×';
      meta.append(edited);
    }
    el.append(meta);
    if (m.text) el.append(div('text', m.text));
    // A card shows its title, its text and its buttons (they only show here: the demo has no one to click).
    if (m.card || m.buttons) {
      const card = div('card', '');
      if (m.card && m.card.title) card.append(div('card-title', m.card.title));
      if (m.card && m.card.text) card.append(div('text', m.card.text));
      if (m.buttons) {
        const buttons = div('buttons', '');
        for (const b of m.buttons) {
          const button = document.createElement('button');
          button.disabled = true;
          button.title = b.action;
          button.textContent = b.label;
          buttons.append(button);
        }
        card.append(buttons);
      }
      el.append(card);
    }
    if (m.fallbackText) el.append(div('fallback', 'fallback text: ' + m.fallbackText));
    return el;
  }
  function div(className, text) {
    const el = document.createElement('div');
    el.className = className;
    el.textContent = text;
    return el;
  }
  async function tick() {
    try {
      const response = await fetch('/spaces', { cache: 'no-store' });
      const view = await response.json();
      renderRuns(view.runs);
      renderAll(view.spaces);
    } catch {}
    setTimeout(tick, 500);
  }
  tick();
</script>
</body>
</html>
`;
}

/** Serves the page and its `/spaces` view (the spaces as a person sees them, and the turns' run links). */
export async function startPage(
  port: number,
  view: () => { spaces: unknown; runs: RunLink[] },
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/spaces') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(view()));
      return;
    }
    if (req.url === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(demoPage());
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
