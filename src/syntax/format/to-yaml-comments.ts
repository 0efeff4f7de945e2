// Which comment goes where in `pipec fmt --to yaml`: the same claims, in the same order, as the SQL printer
// (to-sql.ts with to-sql-comments.ts), so a comment lands at the same item in both forms and
// sql → yaml → sql keeps every comment where it was. Comments are kept in SQL spelling in the AST
// (`-- x`, `/* x */`); YAML writes `--x` as `#x` and a block comment as `#/* x */` (yaml/comments.ts reads them back).
import type { PipeFile, SourceComment, Statement } from '../ast.ts';
import type { Span } from '../../diagnostics/span.ts';
import { CommentPlacer, type ItemComments } from './to-sql-comments.ts';

export interface YamlComments {
  /** By the span object of an option, column, watermark, primary key or compaction action. */
  items: Map<Span, ItemComments>;
  above: Map<Statement, SourceComment[]>;
  trailing: Map<Statement, SourceComment>;
  rest: SourceComment[];
}

export function planYamlComments(file: PipeFile): YamlComments {
  const cp = new CommentPlacer(file.comments ?? []);
  const out: YamlComments = { items: new Map(), above: new Map(), trailing: new Map(), rest: [] };
  const list = (spans: Span[], limit: number): void => {
    if (spans.length === 0) return;
    cp.items(spans, limit).forEach((c, i) => out.items.set(spans[i]!, c));
  };
  file.statements.forEach((s, i) => {
    const end = s.span.end.offset;
    switch (s.kind) {
      case 'source':
        list([...(s.columns ?? []).map((c) => c.span), ...(s.watermark ? [s.watermark.span] : []), ...(s.primaryKey ? [s.primaryKey.span] : [])], end);
        list(s.options.map((o) => o.span), end);
        break;
      case 'compaction':
        list(s.actions.map((a) => a.span), end);
        break;
      default:
        list(s.options.map((o) => o.span), end);
    }
    out.above.set(s, cp.upTo(end));
    const t = cp.trailingStatement(s.span, file.statements[i + 1]?.span.start.offset ?? Infinity);
    if (t) out.trailing.set(s, t);
  });
  out.rest = cp.rest();
  return out;
}

/** A comment's YAML text (what follows `#` on each line). */
export function yamlCommentText(c: SourceComment): string {
  // NEL, LS and PS end a `--` comment nowhere in SQL, but the YAML writer breaks a comment at them
  // and starts a new `#` line, which grows on every reformat: in YAML they are written as spaces.
  return (c.text.startsWith('--') ? c.text.slice(2) : c.text).replace(/[\u0085\u2028\u2029]/g, ' ');
}

export const joinComments = (cs: readonly SourceComment[]): string | undefined => (cs.length ? cs.map(yamlCommentText).join('\n') : undefined);
