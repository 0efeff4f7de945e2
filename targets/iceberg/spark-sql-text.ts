// Lexical helpers for the Spark SQL the Iceberg target writes (maintenance `CALL`s). Every
// name and value reaches the SQL through these, read the way Spark's own lexer reads them
// (SqlBaseLexer.g4): backtick identifiers with the backtick doubled and no escapes, string
// literals with backslash escapes (spark.sql.parser.escapedStringLiterals off, the default).

import { hex4, UNSAFE_CHARS as UNSAFE } from '../../src/util/unsafe-text.ts';

/** One identifier part: `` `name` `` (a backtick inside doubled; Spark identifiers have no escapes). */
export function sparkIdent(part: string): string {
  return '`' + part.replace(/`/g, '``') + '`';
}

/** A multi-part name (`catalog`.`db`.`table`), each part quoted on its own. */
export function sparkMultipart(parts: readonly string[]): string {
  return parts.map(sparkIdent).join('.');
}

/**
 * A string literal Spark reads back as exactly `s`: backslash and quote escaped with a
 * backslash (a doubled `''` is no escape in Spark: it ends the literal and starts another one,
 * concatenated without the quote, and a trailing backslash in the value would eat the closing
 * quote), and unsafe characters as `\uXXXX`, which Spark's unescape turns back into them.
 */
export function sparkString(s: string): string {
  return "'" + s.replace(/[\\']/g, (c) => '\\' + c).replace(UNSAFE, hex4) + "'";
}

/**
 * A `-- ` comment line: user text on one line whatever it holds (Spark ends `--` at \r or \n,
 * and a backslash right before the newline continues the comment on the next line).
 */
export function sparkComment(text: string): string {
  const line = text.replace(UNSAFE, hex4);
  return '-- ' + (line.endsWith('\\') ? line + ' ' : line);
}
