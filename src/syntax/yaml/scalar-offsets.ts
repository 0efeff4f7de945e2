// Maps each character of a YAML scalar's value back to its offset in the YAML file, so a SQL
// error inside `query: |` (indentation stripped, lines folded, escapes decoded) lands on the
// right line and column. Works by aligning the decoded value against the scalar's source text.
import type { LineMap } from '../../diagnostics/span.ts';
import type { FragmentOrigin } from '../front-end.ts';

export type ScalarStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

export interface ScalarSource {
  /** The style the `yaml` package reports (`Scalar.type`). */
  style: ScalarStyle;
  /** `Scalar.range`: [start of the node, end of the value, end of the node]. */
  range: readonly [number, number, number];
  /** The decoded value. */
  value: string;
}

const isWs = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * offsets[i] is the file offset of value[i]; offsets[value.length] is where the value ends.
 * Every non-blank character of the value appears in the source in the same order, so a greedy
 * left-to-right alignment finds it; line breaks skip the indentation YAML strips. A character
 * that cannot be found (never seen in practice) keeps the previous position instead of failing.
 */
export function scalarValueOffsets(text: string, sc: ScalarSource): number[] {
  const { style, value } = sc;
  const [nodeStart, valueEnd] = sc.range;
  let start = nodeStart;
  let end = Math.min(valueEnd, text.length);
  let indent = 0;
  const block = style === 'BLOCK_LITERAL' || style === 'BLOCK_FOLDED';
  if (style === 'QUOTE_SINGLE' || style === 'QUOTE_DOUBLE') {
    start = nodeStart + 1;
    end = Math.max(start, end - 1);
  } else if (block) {
    const nl = text.indexOf('\n', nodeStart);
    start = nl < 0 || nl >= end ? end : nl + 1;
    indent = blockIndent(text, start, end, value);
  }

  // After a line break YAML drops the block indentation (block scalars) or all leading blanks
  // (flow scalars); those columns are never part of the value.
  const skipIndent = (q: number): number => {
    if (block) {
      let n = 0;
      while (q < end && n < indent && text[q] === ' ') {
        q++;
        n++;
      }
      return q;
    }
    while (q < end && (text[q] === ' ' || text[q] === '\t')) q++;
    return q;
  };

  const offsets: number[] = new Array(value.length + 1);
  let p = start;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    let q = p;
    let found = -1;
    let next = p;
    while (q < end) {
      const ch = text[q]!;
      if (ch === '\r') {
        q++;
        continue;
      }
      if (ch === '\n') {
        if (isWs(c)) {
          found = q;
          next = skipIndent(q + 1);
          break;
        }
        q = skipIndent(q + 1);
        continue;
      }
      if (style === 'QUOTE_DOUBLE' && ch === '\\') {
        const esc = decodeEscape(text, q);
        if (esc.char !== '' && esc.char[0] === c) {
          found = q;
          next = q + esc.length;
          break;
        }
        q += esc.length;
        if (esc.char === '') q = skipIndent(q);
        continue;
      }
      if (style === 'QUOTE_SINGLE' && ch === "'" && text[q + 1] === "'") {
        if (c === "'") {
          found = q;
          next = q + 2;
          break;
        }
        q += 2;
        continue;
      }
      if (ch === c || (isWs(c) && (ch === ' ' || ch === '\t'))) {
        found = q;
        next = q + 1;
        break;
      }
      q++;
    }
    if (found >= 0) {
      offsets[i] = found;
      p = next;
    } else {
      offsets[i] = Math.min(p, Math.max(end, start));
    }
  }
  offsets[value.length] = value.length === 0 ? start : Math.max(offsets[value.length - 1]! + 1, Math.min(p, end));
  return offsets;
}

/**
 * The block's content indentation: leading spaces of its first non-blank source line minus
 * those the value keeps on its first non-blank line (which covers explicit indentation
 * indicators like `|2` without parsing them).
 */
function blockIndent(text: string, start: number, end: number, value: string): number {
  let q = start;
  while (q < end) {
    let e = text.indexOf('\n', q);
    if (e < 0 || e > end) e = end;
    const line = text.slice(q, e).replace(/\r$/, '');
    if (line.trim() !== '') {
      const srcLead = line.length - line.replace(/^ +/, '').length;
      const firstValueLine = value.split('\n').find((l) => l.trim() !== '') ?? '';
      const valLead = firstValueLine.length - firstValueLine.replace(/^ +/, '').length;
      return Math.max(0, srcLead - valLead);
    }
    q = e + 1;
  }
  return 0;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};

/** A double-quoted escape at text[q] === '\\': the character it stands for ('' for an escaped line break). */
function decodeEscape(text: string, q: number): { char: string; length: number } {
  const e = text[q + 1];
  if (e === undefined) return { char: '', length: 1 };
  if (e === '\n') return { char: '', length: 2 };
  if (e === '\r') return { char: '', length: text[q + 2] === '\n' ? 3 : 2 };
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { char: simple, length: 2 };
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (hexLen > 0) {
    const hex = text.slice(q + 2, q + 2 + hexLen);
    const code = /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : NaN;
    const char = Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    return { char, length: 2 + hex.length };
  }
  return { char: '', length: 2 };
}

/** The FragmentOrigin handed to the SQL parser for a SQL body held in a YAML scalar. */
export function scalarFragmentOrigin(text: string, lineMap: LineMap, sc: ScalarSource): FragmentOrigin {
  const offsets = scalarValueOffsets(text, sc);
  return {
    lineMap,
    mapOffset(o: number): number {
      if (!Number.isFinite(o) || o <= 0) return offsets[0]!;
      if (o >= offsets.length - 1) return offsets[offsets.length - 1]!;
      return offsets[Math.floor(o)]!;
    },
  };
}
