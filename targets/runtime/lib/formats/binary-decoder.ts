// What the binary value formats (Avro, Protobuf) share: a value is either plain (read with the
// compiled schema) or in the Confluent wire format, whose writer schema is fetched from the
// registry by id before the batch is decoded (`prepare`) and cached compiled (`W`).
import { readSchemaId, SchemaCache, type FetchedSchema } from './confluent.ts';
import { FAIL, type ChangeRecords, type Decoded, type FormatDecoder, type WhereOf } from './types.ts';

export abstract class BinaryDecoder<W> implements FormatDecoder {
  reason = '';
  readonly changes: ChangeRecords = { n: 0, records: [], kinds: [] };
  readonly prepare: ((values: (Buffer | null)[], where: WhereOf) => Promise<void>) | null;
  /** Compiled writer schemas by id; null for plain values. */
  private readonly cache: SchemaCache<W> | null;

  /** `registryUrl` null: plain values; else writer schemas come from it, compiled by `compile`. */
  constructor(registryUrl: string | null, compile: (s: FetchedSchema) => W) {
    if (registryUrl === null) {
      this.cache = null;
      this.prepare = null;
    } else {
      const cache = new SchemaCache<W>(registryUrl, compile);
      this.cache = cache;
      this.prepare = (values, where) => cache.prepare(values, where);
    }
  }

  abstract decode(value: Buffer | null): Decoded;

  /** The schema id a Confluent-framed value starts with, or FAIL (the reason set). */
  protected schemaIdOf(value: Buffer): number | typeof FAIL {
    const id = readSchemaId(value);
    return typeof id === 'string' ? this.fail(id) : id;
  }

  /** The compiled writer schema `id` (fetched by `prepare`), or FAIL (the reason set). */
  protected writer(id: number): W | typeof FAIL {
    const e = this.cache!.get(id);
    if (e === undefined) return this.fail(`schema id ${id} was not fetched`);
    if (!e.ok) return this.fail(e.reason);
    return e.value;
  }

  protected fail(reason: string): typeof FAIL {
    this.reason = reason;
    return FAIL;
  }

  raw(value: Buffer | null): string {
    return value === null ? '' : value.toString('base64');
  }
}
