// Reads only the fields a source's decoder uses out of one JSON object's bytes, without
// JSON.parse of the whole value: the bytes are checked against JSON's grammar as they are
// scanned, the values of the wanted keys become JavaScript values, and every other value is
// stepped over without being built (no strings for unused fields, no object of every key).
// It only ever takes a value JSON.parse would take, with the same values for the wanted keys;
// anything it does not handle itself (escapes in a key, a non-object, a nesting deeper than
// MAX_DEPTH, an error of any kind) returns NOT_TAKEN, and the caller parses that value whole,
// so its errors and dead letters stay JSON.parse's. The bytes must be valid UTF-8 (the
// callers check that first, as they do before JSON.parse).

import { timestampFromBytes } from '../values.ts';

/** `read` did not take the value: parse it whole (JSON.parse gives the answer or the error). */
export const NOT_TAKEN = null;

// The bytes the grammar looks at, as a `const enum`: bundled, each use is its number. A
// module-level `const` would be no better than a variable there (esbuild makes every top-level
// declaration of a bundle a `var`), which V8 reloads at each use in the scanning loops instead
// of folding it: the reader took ~480 ns a bid line that way against ~360 ns.
const enum Ch {
  QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a,
  MINUS = 0x2d,
  ZERO = 0x30,
  NINE = 0x39,
  DOT = 0x2e,
  OPEN_BRACE = 0x7b,
  CLOSE_BRACE = 0x7d,
  OPEN_BRACKET = 0x5b,
  CLOSE_BRACKET = 0x5d,
}

/** The source columns a reader may hand over as epoch milliseconds: the TIMESTAMP ones. */
export function timestampColumns(columns: readonly { name: string; kind: string }[]): Set<string> {
  return new Set(columns.filter((c) => c.kind === 'timestamp').map((c) => c.name));
}

/** Containers inside a skipped or wanted value deeper than this are left to JSON.parse. */
const enum Limit {
  MAX_DEPTH = 64,
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number): boolean => b >= Ch.ZERO && b <= Ch.NINE;
const isHex = (b: number): boolean => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** What a byte inside a JSON string is: most are PLAIN, which the scan steps over at once. */
const enum Kind {
  PLAIN = 0,
  END = 1,
  ESCAPE = 2,
  CONTROL = 3,
  WIDE = 4,
}

/**
 * The reader class, made in a function so that its byte table is a `const` of that function:
 * bundled, a module-level table is a variable (esbuild makes every top-level declaration a
 * `var`), and V8 then loads and bounds-checks it at every byte instead of folding it in (the
 * reader took ~415 ns a bid line that way against ~380 ns).
 */
export const JsonFieldReader = (() => {
  const STRING_BYTE = new Uint8Array(256).map((_, b) => (b === Ch.QUOTE ? Kind.END : b === Ch.BACKSLASH ? Kind.ESCAPE : b < 0x20 ? Kind.CONTROL : b >= 0x80 ? Kind.WIDE : Kind.PLAIN));

  /** After a string's closing quote; -1 when the string is not valid JSON. */
  type StringEnd = number;

  return class JsonFieldReader {
    private readonly keys: Uint8Array[];
    private readonly names: string[];
    private readonly instants: boolean[];
    /** Off when a wanted key is `__proto__`: assigning it would set the prototype, not a field. */
    private readonly on: boolean;
    private buf: Buffer = Buffer.alloc(0);
    private end = 0;
    /** Set by scanString: the string just scanned has a backslash / a byte ≥ 0x80. */
    private escaped = false;
    private wide = false;

    /**
     * `fields`: the record keys the decoder reads (`SourceDef.reads`); `instants`: those of them
     * that are TIMESTAMP columns, whose usual texts become epoch milliseconds here, straight from
     * the bytes (the decoder takes a number as it is, and any other text as before).
     */
    constructor(fields: readonly string[], instants: ReadonlySet<string> = new Set()) {
      this.names = [...fields];
      this.instants = this.names.map((f) => instants.has(f));
      this.keys = this.names.map((f) => Buffer.from(f, 'utf8'));
      this.on = !this.names.includes('__proto__');
    }

    /**
     * The wanted fields of the JSON object in `buf[start, end)` as an object (a missing key is
     * absent, as in JSON.parse's result; of a repeated key the last value counts), or NOT_TAKEN.
     */
    read(buf: Buffer, start: number, end: number): Record<string, unknown> | typeof NOT_TAKEN {
      if (!this.on) return NOT_TAKEN;
        this.buf = buf;
      this.end = end;
      let i = this.space(start);
      if (i >= end || buf[i] !== Ch.OPEN_BRACE) return NOT_TAKEN;
      const out: Record<string, unknown> = {};
      i = this.space(i + 1);
      if (i < end && buf[i] === Ch.CLOSE_BRACE) return this.space(i + 1) === end ? out : NOT_TAKEN;
      for (;;) {
        if (i >= end || buf[i] !== Ch.QUOTE) return NOT_TAKEN;
        // A key: plain bytes up to its closing quote (an escape or a control character: NOT_TAKEN).
        const keyStart = ++i;
        let c = 0;
        while (i < end && (c = STRING_BYTE[buf[i]!]!) !== Kind.END) {
          if (c === Kind.ESCAPE || c === Kind.CONTROL) return NOT_TAKEN;
          i++;
        }
        if (i >= end) return NOT_TAKEN;
        const want = this.wanted(keyStart, i);
        i++;
        if (buf[i] !== Ch.COLON) {
          i = this.space(i);
          if (i >= end || buf[i] !== Ch.COLON) return NOT_TAKEN;
        }
        i++;
        if (i < end && buf[i]! <= 0x20) i = this.space(i);
        if (i >= end) return NOT_TAKEN;
        const valueStart = i;
        i = this.skipValue(i, 0);
        if (i < 0) return NOT_TAKEN;
        if (want >= 0) out[this.names[want]!] = this.instants[want] ? this.instantOf(valueStart, i) : this.valueOf(valueStart, i);
        if (i < end && buf[i]! <= 0x20) i = this.space(i);
        if (i >= end) return NOT_TAKEN;
        const sep = buf[i];
        if (sep === Ch.COMMA) {
          i++;
          if (i < end && buf[i]! <= 0x20) i = this.space(i);
          continue;
        }
        if (sep !== Ch.CLOSE_BRACE) return NOT_TAKEN;
        return this.space(i + 1) === end ? out : NOT_TAKEN;
      }
    }

    private space(i: number): number {
      const buf = this.buf;
      const end = this.end;
      while (i < end && isSpace(buf[i]!)) i++;
      return i;
    }

    /** Index of the wanted field whose UTF-8 bytes are buf[from, to), or -1. */
    private wanted(from: number, to: number): number {
      const len = to - from;
      for (let k = 0; k < this.keys.length; k++) {
        const key = this.keys[k]!;
        if (key.length !== len) continue;
        let j = 0;
        while (j < len && key[j] === this.buf[from + j]) j++;
        if (j === len) return k;
      }
      return -1;
    }

    /** Scans a string's body from `i` (after its opening quote). */
    private scanString(i: number): StringEnd {
        const buf = this.buf;
      const end = this.end;
      let escaped = false;
      let wide = false;
      while (i < end) {
        const c = STRING_BYTE[buf[i]!]!;
        if (c === Kind.PLAIN) {
          i++;
          continue;
        }
        if (c === Kind.END) {
          this.escaped = escaped;
          this.wide = wide;
          return i + 1;
        }
        if (c === Kind.WIDE) {
          wide = true;
          i++;
          continue;
        }
        if (c === Kind.CONTROL) return -1; // control characters must be escaped
        escaped = true;
        const e = buf[i + 1];
        if (e === 0x75) {
          // \uXXXX
          if (i + 5 >= end) return -1;
          for (let h = 2; h < 6; h++) if (!isHex(buf[i + h]!)) return -1;
          i += 6;
          continue;
        }
        if (e === Ch.QUOTE || e === Ch.BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          i += 2;
          continue;
        }
        return -1;
      }
      return -1;
    }

    /** Steps over the JSON value at `i`: the index after it, or -1 when it is not one this reader takes. */
    private skipValue(i: number, depth: number): number {
      const buf = this.buf;
      const b = buf[i]!;
      if (b === Ch.QUOTE) return this.scanString(i + 1);
      if (b === Ch.MINUS || isDigit(b)) return this.skipNumber(i);
      if (b === 0x74) return this.literal(i, 'true');
      if (b === 0x66) return this.literal(i, 'false');
      if (b === 0x6e) return this.literal(i, 'null');
      if (depth >= Limit.MAX_DEPTH) return -1;
      if (b !== Ch.OPEN_BRACKET && b !== Ch.OPEN_BRACE) return -1;
      // An array's elements or an object's members: the same loop, a member starting with its key.
      const close = b === Ch.OPEN_BRACE ? Ch.CLOSE_BRACE : Ch.CLOSE_BRACKET;
      i = this.space(i + 1);
      if (i < this.end && buf[i] === close) return i + 1;
      for (;;) {
        if (close === Ch.CLOSE_BRACE) i = this.skipKey(i);
        if (i < 0 || i >= this.end) return -1;
        i = this.skipValue(i, depth + 1);
        if (i < 0) return -1;
        i = this.space(i);
        if (i >= this.end) return -1;
        if (buf[i] === close) return i + 1;
        if (buf[i] !== Ch.COMMA) return -1;
        i = this.space(i + 1);
      }
    }

    /** Steps over a member's `"key" :` at `i`: the index of its value, or -1. */
    private skipKey(i: number): number {
      if (i >= this.end || this.buf[i] !== Ch.QUOTE) return -1;
      i = this.scanString(i + 1);
      if (i < 0) return -1;
      i = this.space(i);
      if (i >= this.end || this.buf[i] !== Ch.COLON) return -1;
      return this.space(i + 1);
    }

    /** JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    private skipNumber(i: number): number {
      const buf = this.buf;
      const end = this.end;
      if (buf[i] === Ch.MINUS) i++;
      if (i >= end) return -1;
      if (buf[i] === Ch.ZERO) i++;
      else if (isDigit(buf[i]!)) while (i < end && isDigit(buf[i]!)) i++;
      else return -1;
      if (i < end && buf[i] === Ch.DOT) {
        i++;
        if (i >= end || !isDigit(buf[i]!)) return -1;
        while (i < end && isDigit(buf[i]!)) i++;
      }
      if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
        i++;
        if (i < end && (buf[i] === 0x2b || buf[i] === Ch.MINUS)) i++;
        if (i >= end || !isDigit(buf[i]!)) return -1;
        while (i < end && isDigit(buf[i]!)) i++;
      }
      return i;
    }

    private literal(i: number, word: string): number {
      if (i + word.length > this.end) return -1;
      for (let j = 1; j < word.length; j++) if (this.buf[i + j] !== word.charCodeAt(j)) return -1;
      return i + word.length;
    }

    /** The JavaScript value of the valid JSON value at buf[from, to), as JSON.parse gives it. */
    private valueOf(from: number, to: number): unknown {
      const buf = this.buf;
      const b = buf[from]!;
      if (b === Ch.QUOTE) {
        // skipValue has just scanned this string (a string holds no other), so the flags are its own.
        if (this.escaped) return JSON.parse(buf.toString('utf8', from, to));
        return buf.toString(this.wide ? 'utf8' : 'latin1', from + 1, to - 1);
      }
      if (b === Ch.MINUS || isDigit(b)) return this.numberOf(from, to);
      if (b === 0x74) return true;
      if (b === 0x66) return false;
      if (b === 0x6e) return null;
      return JSON.parse(buf.toString('utf8', from, to));
    }

    /** A TIMESTAMP column's value: epoch milliseconds of a plain string of the usual shapes, else as valueOf. */
    private instantOf(from: number, to: number): unknown {
      if (this.buf[from] === Ch.QUOTE && !this.escaped && !this.wide) {
        const ms = timestampFromBytes(this.buf, from + 1, to - 1);
        if (ms !== undefined) return ms;
      }
      return this.valueOf(from, to);
    }

    /** A number's value: plain integers of up to 15 digits exactly by hand, the rest by Number (the same rounding as JSON.parse). */
    private numberOf(from: number, to: number): number {
      const buf = this.buf;
      const neg = buf[from] === Ch.MINUS;
      let i = neg ? from + 1 : from;
      if (to - i <= 15) {
        let v = 0;
        while (i < to) {
          const d = buf[i]! - Ch.ZERO;
          if (d < 0 || d > 9) break;
          v = v * 10 + d;
          i++;
        }
        if (i === to) return neg ? -v : v;
      }
      return Number(buf.toString('latin1', from, to));
    }
  }
})();
export type JsonFieldReader = InstanceType<typeof JsonFieldReader>;
