/**
 * The run page's HTML: the headline and every item, escaped where inserted,
 * so the finished record reads without JavaScript. The script and the style
 * are static files of the same origin (the CSP allows no inline script); the
 * only data for the script is a JSON block, `<`-escaped so nothing in it can close it.
 */
import type { RunHeadline, RunItem } from './items.js';
import { escapeHtml, markdownHtml } from './markdown.js';

export const ASSET_PATH = '/runs/assets';
/** Deeper subagents are indented as this one. */
export const MAX_DEPTH = 6;

/** JSON safe inside `<script type="application/json">`: no `<`, `>`, `&` or line separators stay literal. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const time = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

export function elapsedText(headline: RunHeadline): string {
  if (headline.startedAt === undefined || headline.lastAt === undefined) return '';
  const s = Math.round((headline.lastAt - headline.startedAt) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function headlineHtml(headline: RunHeadline): string {
  const state = headline.ended ? `finished${headline.outcome ? ` (${headline.outcome})` : ''}` : 'live';
  return `<header id="headline">
<h1>Turn <span id="turn-id">${escapeHtml(headline.turnId)}</span></h1>
<dl>
<dt>State</dt><dd id="state" data-ended="${headline.ended}">${escapeHtml(state)}</dd>
<dt>Elapsed</dt><dd id="elapsed">${escapeHtml(elapsedText(headline))}</dd>
<dt>Space</dt><dd id="space">${escapeHtml(headline.space)}</dd>
<dt>Started by</dt><dd id="started-by">${escapeHtml(headline.startedBy ?? 'unknown')}</dd>
<dt>Started</dt><dd id="started-at">${escapeHtml(time(headline.startedAt))}</dd>
</dl>
</header>`;
}

export function itemHtml(item: RunItem): string {
  const parts = [
    // A class, not a style attribute: the CSP allows no inline style.
    `<li class="item kind-${escapeHtml(item.kind)} depth-${Math.min(item.depth, MAX_DEPTH)}" data-seq="${item.seq}">`,
    `<div class="title"><span class="seq">#${item.seq}</span> ${escapeHtml(item.title)}`,
    ...item.meta.map((meta) => ` <span class="meta">${escapeHtml(meta)}</span>`),
    '</div>',
  ];
  if (item.text !== undefined) parts.push(`<p class="text">${escapeHtml(item.text)}</p>`);
  if (item.input !== undefined)
    parts.push(
      `<details class="input"><summary>Input</summary><pre>${escapeHtml(item.input)}</pre></details>`,
    );
  if (item.output !== undefined) {
    const cut = item.cut ? ` (first 8000 characters; ${item.cut} more not shown)` : '';
    parts.push(
      `<details class="output"><summary>Output${escapeHtml(cut)}</summary><pre>${escapeHtml(item.output)}</pre></details>`,
    );
  }
  if (item.answer !== undefined) parts.push(`<div class="answer">${markdownHtml(item.answer)}</div>`);
  parts.push('</li>');
  return parts.join('');
}

export function pageHtml(headline: RunHeadline, items: readonly RunItem[]): string {
  const lastSeq = items.reduce((max, item) => Math.max(max, item.seq), 0);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>turnlog run ${escapeHtml(headline.turnId)}</title>
<link rel="stylesheet" href="${ASSET_PATH}/run-page.css">
<script type="application/json" id="run-data">${jsonForHtml({ lastSeq, ended: headline.ended, turnId: headline.turnId })}</script>
<script src="${ASSET_PATH}/run-page.js" defer></script>
</head>
<body>
${headlineHtml(headline)}
<main>
<ol id="events">
${items.map(itemHtml).join('\n')}
</ol>
<p id="status" role="status">${headline.ended ? 'This turn has finished.' : 'Live: new events appear as they happen.'}</p>
</main>
</body>
</html>
`;
}
