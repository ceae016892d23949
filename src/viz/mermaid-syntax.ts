/**
 * What Mermaid's state-diagram lexer accepts, in one place: state ids and
 * label text. The rules follow the `stateDiagram-v2` grammar, where an id
 * cannot hold `-`, `:`, spaces or `{`, a label after `:` ends at `:`, `;` or
 * a newline, and a quoted label ends at `"`.
 */

/** Characters that would end or break a label, mapped to look-alikes that keep it readable. */
const LABEL_REPLACEMENTS: Record<string, string> = {
  ':': '\uA789', // ꞉ modifier letter colon: a `:` ends a description
  ';': '\uFF1B', // ； fullwidth semicolon: a `;` ends a description
  '"': "'", // a `"` ends a quoted state label
  '%': '\uFF05', // ％ fullwidth percent: `%%` starts a comment
  '<': '\u2039', // ‹ Mermaid strips what looks like an HTML tag
  '>': '\u203A', // ›
  '\n': ' ',
  '\r': ' ',
  '\t': ' ',
};

/** Label text safe in `state "…" as id`, `id : …` and `a --> b : …`. */
export function mermaidText(text: string): string {
  return text.replace(/[:;"%<>\n\r\t]/g, (ch) => LABEL_REPLACEMENTS[ch] ?? ch);
}

/**
 * Allocates readable, unique Mermaid ids (`turn.rolling-over` →
 * `turn_rolling_over`), steering clear of what Mermaid itself reserves.
 */
export interface MermaidIds {
  /** A new unique id for these name parts; the same parts twice get two ids. */
  allocate(parts: readonly string[]): string;
}

export function createMermaidIds(): MermaidIds {
  const taken = new Set<string>();
  return {
    allocate(parts) {
      const base = avoidReserved(parts.join('_').replace(/[^A-Za-z0-9_]/g, '_'));
      let id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
      taken.add(id);
      return id;
    },
  };
}

function avoidReserved(id: string): string {
  let safe = id;
  // The lexer reads a leading `default` as a keyword, and ids must start with a letter; `root` is the diagram's own id.
  if (!/^[A-Za-z]/.test(safe) || /^default/i.test(safe) || safe === 'root') safe = `m_${safe}`;
  // Mermaid names the `[*]` nodes of a composite `<id>_start` / `<id>_end`.
  if (/_(?:start|end)$/.test(safe)) safe = `${safe}_`;
  return safe;
}
