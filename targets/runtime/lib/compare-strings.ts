// SQL string order: Unicode code points (= UTF-8 byte order, what Flink and ClickHouse use),
// not JavaScript's UTF-16 code units. The two orders differ only where the first differing
// units are a surrogate (U+D800–U+DFFF, half of a character above U+FFFF) and a unit in
// U+E000–U+FFFF: JS puts U+FFFD after U+10400, code-point order before. So the comparison
// walks the common prefix with plain unit compares and fixes up only that case.

/** Moves surrogates above U+E000–U+FFFF, which turns UTF-16 unit order into code-point order. */
const fixup = (u: number): number => (u >= 0xe000 ? u - 0x800 : u + 0x2000);

/** Negative, zero or positive as `a` sorts before, with or after `b` in code-point order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // Below U+D800 unit order is code-point order; both at or above it, remap.
      if (x < 0xd800 || y < 0xd800) return x - y;
      return fixup(x) - fixup(y);
    }
  }
  return a.length - b.length;
}

/** Order of two non-null values of one SQL type: strings by code point, the rest by `<`. */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}
