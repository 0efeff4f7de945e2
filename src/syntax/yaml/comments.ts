// The comments of a `.pipe.yaml` file, in the AST's SQL spelling, so `pipec fmt` keeps them in either form:
// `#x` is read as `--x` (and `--x` is written back as `#x` by to-yaml.ts), `#/* x */` as the block comment
// `/* x */` (several `#` lines when it spans lines). Each keeps its YAML span, so the SQL printer's placement
// rules (to-sql-comments.ts) apply as they do to a .pipe.sql file: a comment before an option stays before it,
// one at the end of an option's line stays there. One YAML-only rule: a comment on a statement's key line
// (`orders: # ...`) is the statement's trailing comment, printed after its `;` in SQL.
import { visit } from 'yaml';
import type { SourceComment, Statement } from '../ast.ts';
import type { YamlEnv } from './yaml-nodes.ts';

/** A `#` starts a YAML comment at the start of a line or after whitespace, outside quotes. */
export function isCommentStart(line: string, i: number): boolean {
  if (i > 0 && !/\s/.test(line[i - 1]!)) return false;
  const before = line.slice(0, i);
  const singles = (before.match(/'/g) ?? []).length;
  const doubles = (before.replace(/\\"/g, '').match(/"/g) ?? []).length;
  return singles % 2 === 0 && doubles % 2 === 0;
}

/** Each YAML comment as [offset of its `#`, its text after the `#`], in file order; block scalar lines are SQL, not comments. */
export function yamlCommentsRaw(env: YamlEnv): [number, string][] {
  const blocks: [number, number][] = [];
  visit(env.doc, {
    Scalar(_k, node) {
      if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && node.range) blocks.push([node.range[0], node.range[1]]);
    },
  });
  const out: [number, string][] = [];
  // Lines end as LineMap says (\n, \r\n or a lone \r).
  for (const lm of env.text.matchAll(/[^\r\n]*(?:\r\n|\r|\n|$)/g)) {
    if (lm[0] === '') break;
    const lineStart = lm.index!;
    const line = lm[0].replace(/[\r\n]+$/, '');
    for (let i = line.indexOf('#'); i >= 0; i = line.indexOf('#', i + 1)) {
      if (!isCommentStart(line, i)) continue;
      const at = lineStart + i;
      if (!blocks.some(([s, e]) => at > s && at < e)) out.push([at, line.slice(i + 1)]);
      break;
    }
  }
  return out;
}

export function findComments(env: YamlEnv, statements: readonly Statement[]): SourceComment[] {
  const raw = yamlCommentsRaw(env);
  const out: SourceComment[] = [];
  for (let k = 0; k < raw.length; k++) {
    const [at, text] = raw[k]!;
    let end = at + 1 + text.length;
    let sql = `--${text}`;
    const opened = text.trimStart().startsWith('/*');
    if (opened) {
      // A block comment written over several `#` lines: its lines up to the one that closes it.
      const lines = [text.trimStart()];
      while (!lines.at(-1)!.trimEnd().endsWith('*/') && raw[k + 1]) {
        k++;
        lines.push(raw[k]![1]);
        end = raw[k]![0] + 1 + raw[k]![1].length;
      }
      if (lines.at(-1)!.trimEnd().endsWith('*/')) sql = lines.join('\n');
      else {
        k -= lines.length - 1;
        end = at + 1 + text.length;
      }
    }
    let span = env.lineMap.span(env.file, at, end);
    const owner = statements.find((s) => s.span.start.line === span.start.line && s.span.start.offset < at && s.span.end.line > span.start.line);
    if (owner) span = env.lineMap.span(env.file, owner.span.end.offset, owner.span.end.offset);
    out.push({ text: sql, span });
  }
  return out;
}
