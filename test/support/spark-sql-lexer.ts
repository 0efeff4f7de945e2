// A small Spark SQL lexer for tests, written from Spark's grammar (SqlBaseLexer.g4) and its
// string unescaping (ParserUtils.unescapeSQLString), independent of the emitter's quoting code:
// splits a script into statements at top-level `;` and reads string literals and backtick
// identifiers back to their values, so a test can check what Spark would see.

export type SparkToken =
  | { kind: 'string'; value: string }
  | { kind: 'ident'; value: string; quoted: boolean }
  | { kind: 'punct'; value: string }
  | { kind: 'number'; value: string };

const ESCAPES: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '%': '\\%', _: '\\_' };

/** Statements of `sql` (comments and whitespace dropped), each as its tokens; throws on an unterminated token. */
export function sparkStatements(sql: string): SparkToken[][] {
  const stmts: SparkToken[][] = [];
  let cur: SparkToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (sql.startsWith('--', i)) {
      // SIMPLE_COMMENT: '--' ('\\\n' | ~[\r\n])* '\r'? '\n'?
      i += 2;
      while (i < sql.length && sql[i] !== '\n' && sql[i] !== '\r') i += sql[i] === '\\' && sql[i + 1] === '\n' ? 2 : 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new Error('unterminated block comment');
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= sql.length) throw new Error('unterminated string literal');
        const d = sql[i]!;
        if (d === c) {
          i++;
          break;
        }
        if (d === '\\') {
          const n = sql[i + 1];
          if (n === undefined) throw new Error('unterminated string literal');
          if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(sql.slice(i + 2, i + 6))) {
            v += String.fromCharCode(parseInt(sql.slice(i + 2, i + 6), 16));
            i += 6;
          } else {
            v += ESCAPES[n] ?? n;
            i += 2;
          }
        } else {
          v += d;
          i++;
        }
      }
      // Adjacent literals are one value in Spark ('a' 'b' = 'ab').
      const last = cur[cur.length - 1];
      if (last?.kind === 'string') last.value += v;
      else cur.push({ kind: 'string', value: v });
    } else if (c === '`') {
      let v = '';
      i++;
      for (;;) {
        if (i >= sql.length) throw new Error('unterminated backquoted identifier');
        if (sql[i] === '`') {
          if (sql[i + 1] === '`') {
            v += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        v += sql[i++];
      }
      cur.push({ kind: 'ident', value: v, quoted: true });
    } else if (c === ';') {
      if (cur.length) stmts.push(cur);
      cur = [];
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))![0];
      cur.push({ kind: 'ident', value: m, quoted: false });
      i += m.length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+/.exec(sql.slice(i))![0];
      cur.push({ kind: 'number', value: m });
      i += m.length;
    } else {
      const two = sql.slice(i, i + 2);
      const p = two === '=>' ? two : c;
      cur.push({ kind: 'punct', value: p });
      i += p.length;
    }
  }
  if (cur.length) stmts.push(cur);
  return stmts;
}

/** The parts of a multi-part identifier as Spark's parseMultipartIdentifier reads a string (`a`.`b`, or a.b). */
export function sparkMultipartParts(text: string): string[] {
  const toks = sparkStatements(text);
  if (toks.length !== 1) throw new Error(`not one identifier: ${text}`);
  const parts: string[] = [];
  toks[0]!.forEach((t, k) => {
    if (k % 2 === 1) {
      if (t.kind !== 'punct' || t.value !== '.') throw new Error(`expected '.' in ${text}`);
    } else if (t.kind !== 'ident') throw new Error(`expected an identifier in ${text}`);
    else parts.push(t.value);
  });
  return parts;
}
