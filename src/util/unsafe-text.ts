// The characters no user text (a quoted name, a string literal, an option value) may carry
// raw into a generated file or a printed plan: line terminators of any reader (\n, \r, and
// U+2028/U+2029, which end a line in JavaScript), C0/C1 controls and DEL (NUL, ESC of terminal
// escape sequences), bidi embedding/override/isolate marks and BOM (text that reads differently
// than it parses, "Trojan Source"), and lone surrogates (not encodable as UTF-8). Each emitter
// escapes them in its own syntax; this file only says which they are.

/** Matches one unsafe character (or lone surrogate code unit). Global: use with `replace`. */
export const UNSAFE_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `\uXXXX` of one UTF-16 code unit (the JavaScript, JSON and Spark SQL escape). */
export const hex4 = (ch: string): string => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');

/** Text for a human to read on one line (plan printers): every unsafe character as `\uXXXX`. */
export function displayText(s: string): string {
  return s.replace(UNSAFE_CHARS, hex4);
}

/** Whether `s` holds any unsafe character. */
export function hasUnsafeChars(s: string): boolean {
  return s.search(UNSAFE_CHARS) >= 0;
}
