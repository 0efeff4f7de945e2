// Finds the invalid UTF-8 in a byte stream, chunk by chunk, as file offsets: the CSV reader
// decodes text inside csv-parse (which would put U+FFFD in silently), so it checks each
// record's byte range against these offsets instead. Valid chunks (the common case) cost one
// `isUtf8` call; only a chunk that fails it is scanned byte by byte.
import { isUtf8 } from 'node:buffer';

export class Utf8Scanner {
  /** File offsets of the first byte of each invalid sequence, ascending. */
  readonly invalid: number[] = [];
  /** Bytes of a sequence cut by the chunk boundary, checked with the next chunk. */
  private carry: Buffer = Buffer.alloc(0);
  /** File offset of carry[0] (or of the next chunk when carry is empty). */
  private at = 0;

  push(chunk: Buffer): void {
    const b = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const tail = incompleteTail(b);
    const whole = b.subarray(0, b.length - tail);
    if (!isUtf8(whole)) scan(whole, this.at, this.invalid);
    this.at += whole.length;
    this.carry = Buffer.from(b.subarray(b.length - tail));
  }

  /** End of input: a sequence still cut short is invalid. */
  end(): void {
    if (this.carry.length > 0) this.invalid.push(this.at);
    this.carry = Buffer.alloc(0);
  }
}

/** Length of a multi-byte sequence started but not finished at the end of `b` (0-3). */
function incompleteTail(b: Buffer): number {
  for (let k = 1; k <= 3 && k <= b.length; k++) {
    const c = b[b.length - k]!;
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > k ? k : 0;
    }
  }
  return 0;
}

/** Pushes `base +` the offset of each invalid sequence in `b` (RFC 3629 well-formed ranges). */
function scan(b: Buffer, base: number, out: number[]): void {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // Length and the allowed range of the second byte (excludes overlongs and surrogates).
    let n = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    }
    let ok = n > 0 && i + n < b.length;
    if (ok) {
      const c1 = b[i + 1];
      ok = c1 !== undefined && c1 >= lo && c1 <= hi;
      for (let k = 2; ok && k <= n; k++) {
        const ck = b[i + k];
        ok = ck !== undefined && ck >= 0x80 && ck <= 0xbf;
      }
    }
    if (ok) i += n + 1;
    else {
      out.push(base + i);
      i++;
    }
  }
}
