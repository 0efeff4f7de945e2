// Source positions shared by every phase. A span is attached to the node it describes
// (esbuild's Expr{Data, Loc} habit) so diagnostics can always point at the user's text.

/** A point in a source file. */
export interface Pos {
  /** 0-based offset in UTF-16 code units from the start of the file. */
  offset: number;
  /** 1-based line number. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
}

/** A half-open range [start, end) in one file. `file` is the path as given to the compiler. */
export interface Span {
  file: string;
  start: Pos;
  end: Pos;
}

/** A span for things that have no text of their own (built-in defaults, synthesized nodes). */
export function syntheticSpan(file: string): Span {
  const p: Pos = { offset: 0, line: 1, column: 1 };
  return { file, start: p, end: p };
}

/** The smallest span covering both a and b (same file assumed). */
export function joinSpans(a: Span, b: Span): Span {
  return { file: a.file, start: a.start.offset <= b.start.offset ? a.start : b.start, end: a.end.offset >= b.end.offset ? a.end : b.end };
}

/**
 * Maps offsets to line/column positions; built once per file. A line ends at `\n`, `\r\n` or a
 * lone `\r` (old Mac files), as in the SQL lexer and YAML 1.2. U+2028/U+2029 do not end a line:
 * YAML 1.2 and SQL treat them as ordinary characters, and editors disagree (docs/security.md).
 */
export class LineMap {
  private readonly lineStarts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) this.lineStarts.push(i + 1);
    }
  }
  pos(offset: number): Pos {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, line: lo + 1, column: offset - this.lineStarts[lo]! + 1 };
  }
  span(file: string, start: number, end: number): Span {
    return { file, start: this.pos(start), end: this.pos(end) };
  }
  /** The text of a line without its line break. */
  lineText(line: number): string {
    const s = this.lineStarts[line - 1] ?? this.text.length;
    const e = this.lineStarts[line] ?? this.text.length + 1;
    return this.text.slice(s, e - 1).replace(/\r$/, '');
  }
}
