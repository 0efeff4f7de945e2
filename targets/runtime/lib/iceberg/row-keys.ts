// Upsert keys of an Iceberg sink: one canonical string per key (the same for a row the sink
// buffers and for that row read back from a data file), and the pruning that says which data
// files may hold a key — by the key columns' lower/upper bounds in the manifests and, when the
// partition is a function of the key alone, by partition values.
import type { DataFile } from './writer/manifests.ts';
import type { TableMetadata } from './writer/metadata-json.ts';
import { applyTransform, transformResultType } from './writer/transforms.ts';
import { decimalUnscaled, toMicros } from './writer/values.ts';
import type { IcebergField } from './writer/field-types.ts';

type Rec = Record<string, unknown>;

/** Iceberg types an upsert key column may have. */
const KEY_TYPES = /^(boolean|int|long|float|double|date|timestamp|timestamptz|string|binary|decimal\(\d+,\s*\d+\))$/;

const NULL_MARK = '\u0000null';

/** One writer-model value (writer/values.ts) → text that is equal exactly when the values are. */
function canon(type: string, v: unknown): string {
  if (v === null || v === undefined) return NULL_MARK;
  if (type === 'timestamp' || type === 'timestamptz') return toMicros(v as number | bigint).toString();
  if (type === 'int' || type === 'long' || type === 'date') return BigInt(v as number | bigint).toString();
  if (type === 'float') return String(Math.fround(Number(v)));
  if (type === 'double') return String(Number(v));
  if (type === 'boolean') return v ? 'true' : 'false';
  if (type === 'binary') return Buffer.from(v as Uint8Array).toString('hex');
  const dec = /^decimal\(\d+,\s*(\d+)\)$/.exec(type);
  if (dec) return decimalUnscaled(v as string | bigint, Number(dec[1])).toString();
  return String(v);
}

/** Decoded bound (manifest single-value bytes) in a form `compare` orders, or null: no pruning. */
function decodeBound(type: string, b: Uint8Array | undefined): bigint | Buffer | null {
  if (!b) return null;
  const buf = Buffer.from(b);
  if ((type === 'int' || type === 'date') && buf.length === 4) return BigInt(buf.readInt32LE(0));
  if ((type === 'long' || type === 'timestamp' || type === 'timestamptz') && buf.length === 8) return buf.readBigInt64LE(0);
  if (/^decimal\(/.test(type) && buf.length > 0) {
    let n = 0n;
    for (const x of buf) n = (n << 8n) | BigInt(x);
    if ((buf[0]! & 0x80) !== 0) n -= 1n << BigInt(8 * buf.length);
    return n;
  }
  // Strings: UTF-8 byte order; the writer ordered by UTF-16 units, which differs only beyond U+D7FF.
  if (type === 'string' && !/[\uD800-\uFFFF]/.test(buf.toString('utf8'))) return buf;
  return null;
}

/** The key value in the bound's form (null: not comparable, keep the file). */
function comparable(type: string, v: unknown): bigint | Buffer | null {
  if (type === 'timestamp' || type === 'timestamptz') return toMicros(v as number | bigint);
  if (type === 'int' || type === 'long' || type === 'date') return BigInt(v as number | bigint);
  const dec = /^decimal\(\d+,\s*(\d+)\)$/.exec(type);
  if (dec) return decimalUnscaled(v as string | bigint, Number(dec[1]));
  if (type === 'string' && !/[\uD800-\uFFFF]/.test(String(v))) return Buffer.from(String(v), 'utf8');
  return null;
}

function within(v: bigint | Buffer, lo: bigint | Buffer | null, hi: bigint | Buffer | null): boolean {
  if (typeof v === 'bigint') return (lo === null || v >= (lo as bigint)) && (hi === null || v <= (hi as bigint));
  const s = v as Buffer;
  // A truncated upper bound covers every value that starts with it: compare that long a prefix.
  return (lo === null || Buffer.compare(s, lo as Buffer) >= 0) && (hi === null || Buffer.compare(s.subarray(0, (hi as Buffer).length), hi as Buffer) <= 0);
}

/** A touched key: its canonical text and its column values (writer model). */
export interface KeyRef {
  id: string;
  values: unknown[];
}

export class KeyCodec {
  readonly fields: IcebergField[];
  private readonly types: string[];

  /** `names`: the table's field names of the key columns, in key order. */
  constructor(
    tableFields: IcebergField[],
    readonly names: string[],
  ) {
    this.fields = names.map((n) => tableFields.find((f) => f.name === n)!);
    this.types = this.fields.map((f) => (typeof f.type === 'string' ? f.type : f.type.type));
  }

  /** The first key column whose type cannot be a key, or null. */
  unsupportedColumn(): { name: string; type: string } | null {
    const i = this.types.findIndex((t) => !KEY_TYPES.test(t));
    return i < 0 ? null : { name: this.names[i]!, type: this.types[i]! };
  }

  ref(rec: Rec): KeyRef {
    const values = this.names.map((n) => rec[n] ?? null);
    return { id: this.idOf(values), values };
  }

  idOf(values: unknown[]): string {
    return JSON.stringify(values.map((v, i) => canon(this.types[i]!, v)));
  }

  /** Whether `file` may hold a row of one of `keys`, by its column bounds and null counts. */
  mayHoldAny(file: DataFile, keys: KeyRef[]): boolean {
    const m = file.metrics;
    if (!m) return keys.length > 0;
    const per = this.fields.map((f, i) => ({
      lo: decodeBound(this.types[i]!, m.lowerBounds.get(f.id)),
      hi: decodeBound(this.types[i]!, m.upperBounds.get(f.id)),
      nulls: m.nullValueCounts.get(f.id),
      values: m.valueCounts.get(f.id),
    }));
    return keys.some((k) =>
      k.values.every((v, i) => {
        const p = per[i]!;
        if (v === null || v === undefined) return p.nulls === undefined || BigInt(p.nulls) > 0n;
        if (p.nulls !== undefined && p.values !== undefined && BigInt(p.nulls) === BigInt(p.values)) return false;
        const c = comparable(this.types[i]!, v);
        return c === null || within(c, p.lo, p.hi);
      }),
    );
  }
}

/**
 * Partition pruning: when every source column of the table's partition spec is a key column,
 * a key's partition is known from the key alone; a data file of that spec can hold the key
 * only if its partition is the key's. Null when the spec does not allow this (then only bounds prune).
 */
export class PartitionFilter {
  private constructor(
    private readonly specId: number,
    private readonly parts: { name: string; transform: string; type: string; keyIndex: number }[],
  ) {}

  static of(meta: TableMetadata, codec: KeyCodec): PartitionFilter | null {
    const spec = meta['partition-specs'].find((s) => s['spec-id'] === meta['default-spec-id']);
    if (!spec || spec.fields.length === 0) return null;
    const parts = [];
    for (const p of spec.fields) {
      const keyIndex = codec.fields.findIndex((f) => f.id === p['source-id']);
      if (keyIndex < 0) return null;
      const type = codec.fields[keyIndex]!.type as string;
      // Only result types whose values compare as plain text on both sides (transform output, manifest).
      if (!/^(int|long|date|string|boolean)$/.test(transformResultType(p.transform.replace(/\[.*$/, ''), type))) return null;
      parts.push({ name: p.name, transform: p.transform, type, keyIndex });
    }
    return new PartitionFilter(spec['spec-id'], parts);
  }

  private text(values: unknown[]): string {
    return JSON.stringify(values.map((v) => (v === null || v === undefined ? NULL_MARK : String(v))));
  }

  /** Partitions (as text) of the given keys. */
  partitionsOf(keys: KeyRef[]): Set<string> {
    return new Set(keys.map((k) => this.text(this.parts.map((p) => applyTransform(p.transform, p.type, k.values[p.keyIndex])))));
  }

  /** False only when the file certainly holds none of the keys whose partitions are `wanted`. */
  mayHold(file: DataFile, specId: number, wanted: Set<string>): boolean {
    if (specId !== this.specId) return true;
    return wanted.has(this.text(this.parts.map((p) => file.partition[p.name])));
  }
}

function compareComparable(a: bigint | Buffer, b: bigint | Buffer): number {
  if (typeof a === 'bigint') return a < (b as bigint) ? -1 : a > (b as bigint) ? 1 : 0;
  return Buffer.compare(a, b as Buffer);
}

/**
 * The keys of one batch, sorted by their first column, so that finding the keys a file's
 * first-column bounds admit is a binary search (O(files × log keys) per batch instead of
 * files × keys); the rest of the check is `KeyCodec.mayHoldAny` on those keys only.
 */
export class KeySet {
  private readonly sorted: { c: bigint | Buffer; key: KeyRef }[] = [];
  /** Keys whose first column is null or not comparable: always checked. */
  private readonly others: KeyRef[] = [];
  private readonly type0: string | undefined;

  constructor(
    private readonly codec: KeyCodec,
    readonly keys: KeyRef[],
  ) {
    this.type0 = codec.fields[0] ? (codec.fields[0].type as string) : undefined;
    for (const key of keys) {
      const v = key.values[0];
      const c = this.type0 === undefined || v === null || v === undefined ? null : comparable(this.type0, v);
      if (c === null) this.others.push(key);
      else this.sorted.push({ c, key });
    }
    this.sorted.sort((a, b) => compareComparable(a.c, b.c));
  }

  /** Same answer as `codec.mayHoldAny(file, keys)`. */
  mayHoldAny(file: DataFile): boolean {
    const f0 = this.codec.fields[0];
    const m = file.metrics;
    if (!f0 || !m || typeof f0.type !== 'string') return this.codec.mayHoldAny(file, this.keys);
    const lo = decodeBound(f0.type, m.lowerBounds.get(f0.id));
    const hi = decodeBound(f0.type, m.upperBounds.get(f0.id));
    // First index whose value is >= lo, and first index beyond hi (both predicates are monotone).
    const search = (past: (c: bigint | Buffer) => boolean): number => {
      let [a, b] = [0, this.sorted.length];
      while (a < b) {
        const mid = (a + b) >> 1;
        if (past(this.sorted[mid]!.c)) b = mid;
        else a = mid + 1;
      }
      return a;
    };
    const from = lo === null ? 0 : search((c) => within(c, lo, null));
    const to = hi === null ? this.sorted.length : search((c) => !within(c, null, hi));
    const inRange = this.sorted.slice(from, Math.max(from, to)).map((x) => x.key);
    return this.codec.mayHoldAny(file, [...inRange, ...this.others]);
  }
}
