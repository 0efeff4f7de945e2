// The Confluent wire format (magic byte 0, 4-byte big-endian schema id, for Protobuf the
// message-index array, then the payload) and the writer schemas it names, fetched from the
// schema registry by id (`GET /schemas/ids/{id}`, through the registry client of lib/shared/, which the compiler uses too)
// and compiled once per id.
import { RegistryClient, type RegistryFailure, type RegistrySchema } from '../shared/registry-client.ts';
import { FormatError, type WhereOf } from './types.ts';

export const HEADER_BYTES = 5;

/** The schema id of a wire-format value, or why the value is not in that format. */
export function readSchemaId(buf: Buffer): number | string {
  if (buf.length < HEADER_BYTES) return `${buf.length} bytes is shorter than the 5-byte Confluent wire-format header`;
  if (buf[0] !== 0) return `not in the Confluent wire format: the first byte is 0x${buf[0]!.toString(16).padStart(2, '0')}, not the magic byte 0x00`;
  return buf.readUInt32BE(1);
}

/**
 * The Protobuf message-index array after the header: zigzag varints, a count then the indexes
 * (the path to the message: top-level index, then nested indexes); a lone 0 means [0], the
 * first message. Returns the indexes and where the payload starts, or why it cannot be read.
 */
export function readMessageIndexes(buf: Buffer, pos: number): { indexes: number[]; pos: number } | string {
  const next = (): number | null => {
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 5; i++) {
      if (pos >= buf.length) return null;
      const b = buf[pos++]!;
      n += (b & 0x7f) * mul;
      if (!(b & 0x80)) return n % 2 ? -(n + 1) / 2 : n / 2;
      mul *= 128;
    }
    return null;
  };
  const count = next();
  if (count === null || count < 0 || count > 100) return 'the Protobuf message-index array after the wire-format header is truncated or invalid';
  if (count === 0) return { indexes: [0], pos };
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const x = next();
    if (x === null || x < 0) return 'the Protobuf message-index array after the wire-format header is truncated or invalid';
    indexes.push(x);
  }
  return { indexes, pos };
}

/** A writer schema compiled for this source, or why records written with it are dead letters. */
export type SchemaEntry<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The registry's answer for an id plus its references (dependencies first). */
export interface FetchedSchema {
  id: number;
  main: RegistrySchema;
  references: { name: string; schema: RegistrySchema }[];
}

const RETRY_DELAYS_MS = [250, 1000];

/**
 * Writer schemas by id for one source: each id is fetched and compiled once. An id the
 * registry does not know (or a schema that cannot be read) becomes a failed entry, so its
 * records are dead letters; an unreachable registry or refused access stops the source.
 */
export class SchemaCache<T> {
  private readonly entries = new Map<number, SchemaEntry<T>>();
  private readonly client: RegistryClient;

  constructor(
    registryUrl: string,
    private readonly compile: (s: FetchedSchema) => T,
    timeoutMs = 5000,
  ) {
    this.client = new RegistryClient(registryUrl, timeoutMs);
  }

  /** The registry URL as messages show it (credentials removed). */
  get displayUrl(): string {
    return this.client.displayUrl;
  }

  get(id: number): SchemaEntry<T> | undefined {
    return this.entries.get(id);
  }

  /** Fetches and compiles every id of these values not seen yet. */
  async prepare(values: (Buffer | null)[], where: WhereOf): Promise<void> {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || v === undefined || v.length < HEADER_BYTES || v[0] !== 0) continue;
      const id = v.readUInt32BE(1);
      if (!this.entries.has(id)) this.entries.set(id, await this.load(id, where(i)));
    }
  }

  private async load(id: number, at: string): Promise<SchemaEntry<T>> {
    const main = await this.fetch(() => this.client.getById(id), `schema id ${id}`, at);
    if (!main.ok) return { ok: false, reason: `unknown schema id ${id} (registry ${this.displayUrl}: ${main.detail})` };
    const references: FetchedSchema['references'] = [];
    const seen = new Set<string>();
    const visit = async (s: RegistrySchema): Promise<string | null> => {
      for (const r of s.references) {
        const key = `${r.subject}\u0000${r.version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const what = `subject ${r.subject} version ${r.version} (referenced by schema id ${id})`;
        const got = await this.fetch(() => this.client.getVersion(r.subject, String(r.version)), what, at);
        if (!got.ok) return `${what} not found at registry ${this.displayUrl}: ${got.detail}`;
        const deeper = await visit(got.value);
        if (deeper) return deeper;
        references.push({ name: r.name, schema: got.value });
      }
      return null;
    };
    const missing = await visit(main.value);
    if (missing) return { ok: false, reason: missing };
    try {
      return { ok: true, value: this.compile({ id, main: main.value, references }) };
    } catch (e) {
      return { ok: false, reason: `schema id ${id} cannot be read: ${(e as Error).message}` };
    }
  }

  /** One registry request with retries; throws when the registry cannot answer at all. */
  private async fetch(
    req: () => Promise<{ ok: true; value: RegistrySchema } | { ok: false; failure: RegistryFailure }>,
    what: string,
    at: string,
  ): Promise<{ ok: true; value: RegistrySchema } | { ok: false; detail: string }> {
    for (let attempt = 0; ; attempt++) {
      const r = await req();
      if (r.ok) return r;
      const f = r.failure;
      if (f.code === 'registry-subject-not-found') return { ok: false, detail: f.detail };
      // Only an unreachable registry may come back; a refusal or garbage will not change.
      if (f.code === 'registry-unreachable' && attempt < RETRY_DELAYS_MS.length) {
        await new Promise((res) => setTimeout(res, RETRY_DELAYS_MS[attempt]));
        continue;
      }
      const why =
        f.code === 'registry-unreachable'
          ? `is unreachable (${f.reason})`
          : f.code === 'registry-unauthorized'
            ? `refused access (HTTP ${f.status}; credentials go in the URL's user info)`
            : `answered something that is not a schema (${f.detail})`;
      throw new FormatError(`schema registry ${this.displayUrl} ${why} while reading ${what} for the record at ${at}`);
    }
  }
}
