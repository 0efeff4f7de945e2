// Names in YAML follow SQL identifier rules: a plain word is case-insensitive (folded to lower
// case); anything else is written with SQL double quotes inside the YAML string ('"Order Id"'),
// which keep case. One spelling per identifier, the same as in `.pipe.sql`.
import type { Ident, QualifiedName } from '../ast.ts';
import type { Span } from '../../diagnostics/span.ts';

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `spanOf(start, end)` gives the span of a substring of the name's text. */
export type SubSpan = (start: number, end: number) => Span;

/** One identifier; null when the text is neither a plain word nor a complete "quoted" name. */
export function parseIdentText(text: string, spanOf: SubSpan): Ident | null {
  const parts = splitQualified(text);
  if (!parts || parts.length !== 1) return null;
  return parts[0]!.ident(spanOf);
}

/** `analytics.revenue_1m`, `"My DB".t`; null when any part is not a valid identifier. */
export function parseQualifiedText(text: string, spanOf: SubSpan): QualifiedName | null {
  const parts = splitQualified(text);
  if (!parts) return null;
  return { parts: parts.map((p) => p.ident(spanOf)), span: spanOf(0, text.length) };
}

interface RawPart {
  ident(spanOf: SubSpan): Ident;
}

function splitQualified(text: string): RawPart[] | null {
  const out: RawPart[] = [];
  let i = 0;
  for (;;) {
    const start = i;
    if (text[i] === '"') {
      let name = '';
      i++;
      for (;;) {
        if (i >= text.length) return null;
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            name += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += text[i];
        i++;
      }
      if (name === '') return null;
      const end = i;
      out.push({ ident: (spanOf) => ({ name, quoted: true, span: spanOf(start, end) }) });
    } else {
      while (i < text.length && text[i] !== '.') i++;
      const word = text.slice(start, i);
      if (!PLAIN.test(word)) return null;
      const end = i;
      out.push({ ident: (spanOf) => ({ name: word.toLowerCase(), quoted: false, span: spanOf(start, end) }) });
    }
    if (i === text.length) return out;
    if (text[i] !== '.') return null;
    i++;
  }
}

/** The YAML text of an identifier: plain when it reads back as the same name, else "quoted". */
export function formatIdentYaml(id: Ident): string {
  if (/^[a-z_][a-z0-9_]*$/.test(id.name)) return id.name;
  return `"${id.name.replace(/"/g, '""')}"`;
}

export function formatQualifiedYaml(q: QualifiedName): string {
  return q.parts.map(formatIdentYaml).join('.');
}
