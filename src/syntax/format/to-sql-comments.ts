// Keeps the comments of a .pipe.sql file through `pipec fmt`. A comment at the end of an option,
// column or compaction-action line stays on that line (lines right under it stay under it), one
// between list items stays before the next item, one after a statement's `;` stays there, and
// any other comment moves to the lines above its statement. Nothing is dropped.
import type { SourceComment } from '../ast.ts';
import type { Span } from '../../diagnostics/span.ts';

/** The comments that belong to one list item. */
export interface ItemComments {
  before: SourceComment[];
  trailing: SourceComment | null;
  /** Own-line comments right under the trailing one (a comment continued over several lines). */
  continuation: SourceComment[];
}

const NONE: ItemComments = { before: [], trailing: null, continuation: [] };

export class CommentPlacer {
  private readonly used = new Set<SourceComment>();

  constructor(private readonly comments: readonly SourceComment[]) {}

  private free(pred: (c: SourceComment) => boolean): SourceComment[] {
    return this.comments.filter((c) => !this.used.has(c) && pred(c));
  }

  private claim(cs: SourceComment[]): SourceComment[] {
    for (const c of cs) this.used.add(c);
    return cs;
  }

  /**
   * Claims the comments of list items (all inside a statement that ends at `limit`); the result
   * is in the order of `spans`.
   */
  items(spans: Span[], limit: number): ItemComments[] {
    if (this.comments.length === 0) return spans.map(() => NONE);
    const order = spans.map((s, i) => ({ s, i })).sort((a, b) => a.s.start.offset - b.s.start.offset);
    const out: ItemComments[] = spans.map(() => NONE);
    order.forEach(({ s, i }, k) => {
      const prev = order[k - 1]?.s;
      const nextStart = order[k + 1]?.s.start.offset ?? limit;
      const before = prev ? this.claim(this.free((c) => c.span.start.offset >= prev.end.offset && c.span.end.offset <= s.start.offset)) : [];
      const [trailing] = this.claim(
        this.free((c) => c.span.start.line === s.end.line && c.span.start.offset >= s.end.offset && c.span.start.offset < nextStart).slice(0, 1),
      );
      const continuation: SourceComment[] = [];
      if (trailing) {
        let line = trailing.span.end.line;
        for (;;) {
          // Deeper than the item: a comment at the item's own indentation introduces the next item.
          const [c] = this.free((x) => x.span.start.line === line + 1 && x.span.start.column > s.start.column && x.span.start.offset < nextStart);
          if (!c) break;
          this.claim([c]);
          continuation.push(c);
          line = c.span.end.line;
        }
      }
      out[i] = { before, trailing: trailing ?? null, continuation };
    });
    return out;
  }

  /** The comment after a statement's end on its last line (after the `;`), if any. */
  trailingStatement(span: Span, nextStart: number): SourceComment | null {
    const [c] = this.free((x) => x.span.start.line === span.end.line && x.span.start.offset >= span.end.offset && x.span.start.offset < nextStart);
    if (!c) return null;
    this.claim([c]);
    return c;
  }

  /** Every unclaimed comment that starts before `offset`: printed above the statement there. */
  upTo(offset: number): SourceComment[] {
    return this.claim(this.free((c) => c.span.start.offset < offset));
  }

  /** Whatever is left (comments after the last statement). */
  rest(): SourceComment[] {
    return this.claim(this.free(() => true));
  }
}

/**
 * A list item's text with its comments around it; `indent` is the item's indentation and
 * `commentCol` the column where trailing comments of the list start (aligned, as people write them).
 */
export function withComments(indent: string, text: string, c: ItemComments, commentCol: number): string {
  const lines = c.before.map((b) => indent + b.text);
  if (!c.trailing) return [...lines, indent + text].join('\n');
  const main = `${(indent + text).padEnd(commentCol)}${c.trailing.text}`;
  return [...lines, main, ...c.continuation.map((x) => ' '.repeat(commentCol) + x.text)].join('\n');
}

/** The column for a list's trailing comments: two spaces after its longest commented line. */
export function commentColumn(lines: { text: string; c: ItemComments }[]): number {
  return Math.max(0, ...lines.filter((l) => l.c.trailing).map((l) => l.text.length + 2));
}
