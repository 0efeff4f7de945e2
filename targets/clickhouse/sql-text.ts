// Lexical helpers of the ClickHouse target: identifier quoting, string literals, comments.
// Every name that reaches the DDL passes through `ident`, so no user name can break a statement.
import { displayText } from '../../src/util/unsafe-text.ts';

/**
 * A backtick-quoted identifier. The quote is doubled and backslashes are escaped (both are ClickHouse
 * lexer rules); doubling rather than backslash-quote keeps the text splittable by generic SQL tools.
 */
export function ident(name: string): string {
  return '`' + escapeBody(name, '`') + '`';
}

/** `db`.`name` */
export function qualified(db: string, name: string): string {
  return `${ident(db)}.${ident(name)}`;
}

/** A single-quoted string literal (quote doubled, backslashes and control characters escaped). */
export function str(value: string): string {
  return "'" + escapeBody(value, "'") + "'";
}

function escapeBody(s: string, quote: string): string {
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += quote + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else out += ch;
  }
  return out;
}

/**
 * A `-- ` comment line; user text is flattened to one line so it cannot end the comment early
 * (line breaks become a space, other unsafe characters of src/util/unsafe-text.ts `\uXXXX`).
 */
export function comment(text: string): string {
  return '-- ' + displayText(text.replace(/[\r\n]+/g, ' '));
}
