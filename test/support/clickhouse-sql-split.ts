// Splits a ClickHouse SQL script into statements the way ClickHouse's lexer reads it
// (src/Parsers/Lexer.cpp): '...' strings, `...` and "..." identifiers with backslash escapes
// and doubled quotes, `--` comments to the end of the line, /* */ comments. For tests; chdb
// then parses each piece (sqlparse is no judge here: its string rule `'(''|\\'|[^'])*'` has
// no `\\` pair, so a literal ending in a backslash runs on into the next statements).

/** Statements (comments kept inside, surrounding white space and the `;` removed), non-empty only. */
export function clickhouseStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  let hasCode = false;
  const push = (end: number): void => {
    if (hasCode) out.push(sql.slice(start, end).trim());
    hasCode = false;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '`' || c === '"') {
      hasCode = true;
      i++;
      for (;;) {
        if (i >= sql.length) throw new Error(`unterminated ${c} at ${start}`);
        if (sql[i] === '\\') i += 2;
        else if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2;
          else {
            i++;
            break;
          }
        } else i++;
      }
    } else if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new Error('unterminated block comment');
      i = end + 2;
    } else if (c === ';') {
      push(i);
      start = ++i;
    } else {
      if (!/\s/.test(c)) hasCode = true;
      i++;
    }
  }
  push(sql.length);
  return out;
}

/** The first two words of a statement, comments skipped ("CREATE TABLE"). */
export function statementHead(stmt: string): string {
  const code = stmt.replace(/^(\s*--[^\n]*\n)+/, '');
  return code.trim().split(/\s+/).slice(0, 2).join(' ');
}
