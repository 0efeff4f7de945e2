// Deletion vectors (Iceberg v3): the deleted row positions of ONE data file as a
// `deletion-vector-v1` blob in a Puffin file. v3 tables must not get new position-delete
// files, and a snapshot holds at most one vector per data file (table-writer merges them).
// Blob: length (4 bytes BE, magic + vector), magic D1 D3 39 64, the 64-bit portable Roaring
// bitmap, CRC-32 of magic + vector (4 bytes BE). Puffin file: magic "PFA1", the blobs, then a
// footer: magic, JSON payload (uncompressed), payload size (4 bytes LE), flags (4 zero bytes),
// magic. Also reads back any delete file (Parquet position deletes or vectors) as positions.
import { crc32 } from 'node:zlib';
import { readBytes } from './file-io.ts';
import { deserializeRoaring64, serializeRoaring64 } from './roaring-portable.ts';
import { CONTENT, type DataFile } from './manifests.ts';

const PUFFIN_MAGIC = Buffer.from('PFA1', 'latin1');
const DV_MAGIC = Buffer.from([0xd1, 0xd3, 0x39, 0x64]);
/** Field id of `_pos`: the column whose values a deletion vector lists. */
const ROW_POSITION_FIELD_ID = 2147483645;

export interface EncodedDeletionVector {
  bytes: Buffer;
  /** Where the blob starts and how long it is (the manifest's content_offset / content_size_in_bytes). */
  offset: number;
  length: number;
  cardinality: number;
}

/** A Puffin file holding one deletion vector for `referencedDataFile`. */
export function encodeDeletionVectorFile(referencedDataFile: string, positions: Iterable<number>): EncodedDeletionVector {
  const unique = new Set(positions);
  const vector = serializeRoaring64(unique);
  const body = Buffer.concat([DV_MAGIC, vector]);
  const blob = Buffer.alloc(body.length + 8);
  blob.writeUInt32BE(body.length, 0);
  body.copy(blob, 4);
  blob.writeUInt32BE(crc32(body), 4 + body.length);
  const offset = PUFFIN_MAGIC.length;
  const payload = Buffer.from(
    JSON.stringify({
      blobs: [
        {
          type: 'deletion-vector-v1',
          fields: [ROW_POSITION_FIELD_ID],
          // Unknown until the commit (Puffin spec: -1 for deletion vectors).
          'snapshot-id': -1,
          'sequence-number': -1,
          offset,
          length: blob.length,
          properties: { 'referenced-data-file': referencedDataFile, cardinality: String(unique.size) },
        },
      ],
      properties: { 'created-by': 'pipec' },
    }),
    'utf8',
  );
  const tail = Buffer.alloc(8);
  tail.writeInt32LE(payload.length, 0);
  const bytes = Buffer.concat([PUFFIN_MAGIC, blob, PUFFIN_MAGIC, payload, tail, PUFFIN_MAGIC]);
  return { bytes, offset, length: blob.length, cardinality: unique.size };
}

/** The positions of the deletion-vector blob at `offset`/`length` of Puffin bytes `file`. */
export function decodeDeletionVector(file: Buffer, offset: number, length: number, where: string): number[] {
  const blob = file.subarray(offset, offset + length);
  if (blob.length < 12 || blob.length !== length) throw new Error(`deletion vector in ${where} is truncated`);
  const size = blob.readUInt32BE(0);
  const body = blob.subarray(4, 4 + size);
  if (!body.subarray(0, 4).equals(DV_MAGIC)) throw new Error(`deletion vector in ${where} has a wrong magic`);
  if (blob.readUInt32BE(4 + size) !== crc32(body)) throw new Error(`deletion vector in ${where} fails its CRC check`);
  return deserializeRoaring64(body.subarray(4));
}

export const isDeletionVector = (f: DataFile): boolean => f.content === CONTENT.POSITION_DELETES && f.fileFormat === 'PUFFIN';

/** What a position-delete file or deletion vector deletes: data file location → positions. */
export async function readDeletedPositions(f: DataFile, readParquetRows: (loc: string) => Promise<Record<string, unknown>[]>): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  if (isDeletionVector(f)) {
    if (!f.referencedDataFile || f.contentOffset === null || f.contentOffset === undefined || f.contentSizeInBytes === null || f.contentSizeInBytes === undefined) {
      throw new Error(`deletion vector entry ${f.filePath} lacks its referenced data file, offset or size`);
    }
    out.set(f.referencedDataFile, new Set(decodeDeletionVector(readBytes(f.filePath), Number(f.contentOffset), Number(f.contentSizeInBytes), f.filePath)));
    return out;
  }
  for (const r of await readParquetRows(f.filePath)) {
    const target = String(r.file_path);
    let set = out.get(target);
    if (!set) out.set(target, (set = new Set()));
    set.add(Number(r.pos));
  }
  return out;
}
