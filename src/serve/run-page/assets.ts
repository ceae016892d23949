/**
 * The run page's static files, served from the same origin (the CSP allows
 * `script-src 'self'` only). The script adds live updates: it follows the
 * event stream with EventSource and builds each new item with DOM calls and
 * textContent, never markup from data, the same way html.ts writes it.
 */

export const RUN_PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #6e6e73; --line: #d2d2d7; --accent: #0b57d0; }
@media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --bg: #161617; --muted: #a1a1a6; --line: #3a3a3c; --accent: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
h1 { font-size: 1.25rem; margin: 0 0 .5rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: 0 0 1rem; }
dt { color: var(--muted); }
dd { margin: 0; }
#state[data-ended="false"] { color: var(--accent); font-weight: 600; }
ol#events { list-style: none; padding: 0; margin: 0; }
.item { border-top: 1px solid var(--line); padding: .5rem 0; }
.depth-1 { margin-left: 1rem; } .depth-2 { margin-left: 2rem; } .depth-3 { margin-left: 3rem; }
.depth-4 { margin-left: 4rem; } .depth-5 { margin-left: 5rem; } .depth-6 { margin-left: 6rem; }
.seq { color: var(--muted); font-variant-numeric: tabular-nums; }
.meta { display: inline-block; font-size: .85em; padding: 0 .4em; border: 1px solid var(--line); border-radius: .6em; color: var(--muted); }
.text { white-space: pre-wrap; margin: .25rem 0; }
pre { white-space: pre-wrap; overflow-x: auto; max-height: 40rem; overflow-y: auto; background: color-mix(in srgb, var(--fg) 6%, transparent); padding: .5rem; border-radius: .3rem; font-size: .85rem; }
summary { cursor: pointer; color: var(--accent); }
.kind-answer .answer { border-left: 3px solid var(--accent); padding-left: .75rem; }
@media (max-width: 40rem) {
  body { padding: .5rem; font-size: 15px; }
  .depth-1, .depth-2, .depth-3, .depth-4, .depth-5, .depth-6 { margin-left: .75rem; }
}
`;

export const RUN_PAGE_JS = `'use strict';
(function () {
  var dataNode = document.getElementById('run-data');
  if (!dataNode || !window.EventSource) return;
  var data = JSON.parse(dataNode.textContent || '{}');
  if (data.ended) return;
  var list = document.getElementById('events');
  var status = document.getElementById('status');
  var token = new URLSearchParams(location.search).get('t') || '';
  var url = location.pathname + '/events?t=' + encodeURIComponent(token) + '&after=' + Number(data.lastSeq || 0);
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function inline(parent, nodes) {
    nodes.forEach(function (n) {
      if (n.t === 'text') parent.appendChild(document.createTextNode(n.v));
      else if (n.t === 'code') parent.appendChild(el('code', '', n.v));
      else if (n.t === 'strong' || n.t === 'em') { var s = el(n.t); inline(s, n.c); parent.appendChild(s); }
      else if (n.t === 'link' && /^(https?:\\/\\/|mailto:)/i.test(n.href)) {
        var a = el('a'); a.href = n.href; a.rel = 'noopener noreferrer nofollow'; inline(a, n.c); parent.appendChild(a);
      }
    });
  }
  function markdown(parent, blocks) {
    blocks.forEach(function (b) {
      if (b.t === 'pre') { var pre = el('pre'); pre.appendChild(el('code', '', b.v)); parent.appendChild(pre); }
      else if (b.t === 'ul' || b.t === 'ol') {
        var l = el(b.t); b.items.forEach(function (it) { var li = el('li'); inline(li, it); l.appendChild(li); }); parent.appendChild(l);
      } else if (/^(p|h1|h2|h3|blockquote)$/.test(b.t)) { var x = el(b.t); inline(x, b.c); parent.appendChild(x); }
    });
  }
  function details(cls, label, text) {
    var d = el('details', cls); d.appendChild(el('summary', '', label)); d.appendChild(el('pre', '', text)); return d;
  }
  function add(item) {
    if (list.querySelector('li[data-seq="' + Number(item.seq) + '"]')) return;
    var li = el('li', 'item kind-' + String(item.kind).replace(/[^a-z_]/g, '') + ' depth-' + Math.min(Number(item.depth) || 0, 6));
    li.setAttribute('data-seq', String(Number(item.seq)));
    var title = el('div', 'title');
    title.appendChild(el('span', 'seq', '#' + Number(item.seq)));
    title.appendChild(document.createTextNode(' ' + item.title));
    (item.meta || []).forEach(function (m) { title.appendChild(document.createTextNode(' ')); title.appendChild(el('span', 'meta', m)); });
    li.appendChild(title);
    if (item.text !== undefined) li.appendChild(el('p', 'text', item.text));
    if (item.input !== undefined) li.appendChild(details('input', 'Input', item.input));
    if (item.output !== undefined) {
      var cut = item.cut ? ' (first 8000 characters; ' + Number(item.cut) + ' more not shown)' : '';
      li.appendChild(details('output', 'Output' + cut, item.output));
    }
    if (item.answer !== undefined) { var ans = el('div', 'answer'); markdown(ans, item.answer); li.appendChild(ans); }
    list.appendChild(li);
  }
  function headline(h) {
    var state = document.getElementById('state');
    state.textContent = h.ended ? 'finished' + (h.outcome ? ' (' + h.outcome + ')' : '') : 'live';
    state.setAttribute('data-ended', String(!!h.ended));
    document.getElementById('elapsed').textContent = h.elapsed || '';
    if (h.startedBy) document.getElementById('started-by').textContent = h.startedBy;
  }
  var source = new EventSource(url);
  source.addEventListener('item', function (e) { add(JSON.parse(e.data)); });
  source.addEventListener('headline', function (e) { headline(JSON.parse(e.data)); });
  source.addEventListener('end', function (e) {
    headline(JSON.parse(e.data));
    status.textContent = 'This turn has finished.';
    source.close();
  });
  source.onerror = function () { status.textContent = 'Reconnecting…'; };
  source.onopen = function () { status.textContent = 'Live: new events appear as they happen.'; };
})();
`;
