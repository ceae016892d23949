/**
 * The final answer's Markdown, parsed to a small tree of safe nodes: the
 * server writes it as escaped HTML, the page's script builds it with DOM
 * calls, and neither ever parses markup out of data. The subset: paragraphs,
 * headings, lists, quotes, fenced code, and inline code, bold, italics and
 * links. A link only keeps an http(s) or mailto target, and shows that target
 * beside its label whenever they differ, so a label can never pass for another URL.
 */

export type MdInline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'strong' | 'em'; c: MdInline[] }
  | { t: 'link'; href: string; c: MdInline[] };

export type MdBlock =
  | { t: 'p' | 'h1' | 'h2' | 'h3' | 'blockquote'; c: MdInline[] }
  | { t: 'pre'; v: string }
  | { t: 'ul' | 'ol'; items: MdInline[][] };

const SAFE_HREF = /^(https?:\/\/|mailto:)/i;

export function parseMarkdown(source: string): MdBlock[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trimStart().startsWith(fence[1] as string)) {
        code.push(lines[i] as string);
        i++;
      }
      i++;
      blocks.push({ t: 'pre', v: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min((heading[1] as string).length, 3);
      blocks.push({ t: `h${level}` as 'h1' | 'h2' | 'h3', c: parseInline(heading[2] as string) });
      i++;
      continue;
    }
    const listKind = (text: string) =>
      /^\s*[-*+]\s+/.test(text) ? 'ul' : /^\s*\d+[.)]\s+/.test(text) ? 'ol' : undefined;
    const kind = listKind(line);
    if (kind) {
      const items: MdInline[][] = [];
      while (i < lines.length && listKind(lines[i] as string) === kind) {
        items.push(parseInline((lines[i] as string).replace(/^\s*([-*+]|\d+[.)])\s+/, '')));
        i++;
      }
      blocks.push({ t: kind, items });
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i] as string)) {
        quoted.push((lines[i] as string).replace(/^\s*>\s?/, ''));
        i++;
      }
      blocks.push({ t: 'blockquote', c: parseInline(quoted.join('\n')) });
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      (lines[i] as string).trim() !== '' &&
      !/^\s*(```|~~~|#{1,6}\s|>)/.test(lines[i] as string) &&
      listKind(lines[i] as string) === undefined
    ) {
      para.push(lines[i] as string);
      i++;
    }
    blocks.push({ t: 'p', c: parseInline(para.join('\n')) });
  }
  return blocks;
}

const INLINE =
  /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]*)\]\(([^)\s]*)\)|<(https?:\/\/[^>\s]+)>/;

export function parseInline(text: string): MdInline[] {
  const out: MdInline[] = [];
  let rest = text;
  while (rest.length > 0) {
    const match = INLINE.exec(rest);
    if (!match) {
      out.push({ t: 'text', v: rest });
      break;
    }
    if (match.index > 0) out.push({ t: 'text', v: rest.slice(0, match.index) });
    const [whole, code, strong1, strong2, em1, em2, label, href, auto] = match;
    if (code !== undefined) out.push({ t: 'code', v: code });
    else if (strong1 !== undefined || strong2 !== undefined)
      out.push({ t: 'strong', c: parseInline((strong1 ?? strong2) as string) });
    else if (em1 !== undefined || em2 !== undefined)
      out.push({ t: 'em', c: parseInline((em1 ?? em2) as string) });
    else if (auto !== undefined) out.push({ t: 'link', href: auto, c: [{ t: 'text', v: auto }] });
    else out.push(...link(label as string, href as string, whole));
    rest = rest.slice(match.index + whole.length);
  }
  return out;
}

/** A link with a safe target; its label, when it is not the target itself, is followed by the target. */
function link(label: string, href: string, whole: string): MdInline[] {
  if (!SAFE_HREF.test(href)) return [{ t: 'text', v: whole }];
  const shown: MdInline[] = [{ t: 'link', href, c: [{ t: 'text', v: label || href }] }];
  if (label !== '' && label !== href) shown.push({ t: 'text', v: ` (${href})` });
  return shown;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

export function inlineHtml(nodes: MdInline[]): string {
  return nodes
    .map((node) => {
      switch (node.t) {
        case 'text':
          return escapeHtml(node.v);
        case 'code':
          return `<code>${escapeHtml(node.v)}</code>`;
        case 'strong':
        case 'em':
          return `<${node.t}>${inlineHtml(node.c)}</${node.t}>`;
        default:
          return `<a href="${escapeHtml(node.href)}" rel="noopener noreferrer nofollow">${inlineHtml(node.c)}</a>`;
      }
    })
    .join('');
}

export function markdownHtml(blocks: MdBlock[]): string {
  return blocks
    .map((block) => {
      if (block.t === 'pre') return `<pre><code>${escapeHtml(block.v)}</code></pre>`;
      if ('items' in block)
        return `<${block.t}>${block.items.map((item) => `<li>${inlineHtml(item)}</li>`).join('')}</${block.t}>`;
      return `<${block.t}>${inlineHtml(block.c)}</${block.t}>`;
    })
    .join('\n');
}
