// Reads the current snapshot's manifests: the live data files and delete files of a table,
// and the manifests themselves (appends carry them into the next manifest list unchanged).
// Row lineage (v3): a data file with a null `first_row_id` inherits the manifest's plus the
// record counts of the data files before it in that manifest that inherit too; the inherited
// value is put on the file, as it must be written when the file is carried into a new manifest.
import type { SnapshotJson, TableMetadata } from './metadata-json.ts';
import { currentSnapshot } from './snapshot.ts';
import { CONTENT, decodeManifest, decodeManifestList, STATUS, type ManifestEntry, type ManifestListEntry } from './manifests.ts';
import { readBytes } from './file-io.ts';

export interface LiveFiles {
  manifests: ManifestListEntry[];
  /** Live entries (added or existing) of every manifest, with the manifest they came from. */
  entries: { entry: ManifestEntry; manifest: ManifestListEntry; sequenceNumber: bigint }[];
}

/** The live files of the current snapshot, or of `snap` (time travel: `pipec query --snapshot`). */
export async function readLiveFiles(meta: TableMetadata, snap: SnapshotJson | null = currentSnapshot(meta)): Promise<LiveFiles> {
  if (!snap) return { manifests: [], entries: [] };
  const manifests = await decodeManifestList(readBytes(snap['manifest-list']));
  const entries: LiveFiles['entries'] = [];
  for (const m of manifests) {
    const { entries: es } = await decodeManifest(readBytes(m.manifest_path));
    inheritFirstRowIds(es, m);
    for (const e of es) {
      if (e.status === STATUS.DELETED) continue;
      // Entries written with a null sequence number inherit the manifest's.
      const seq = BigInt(e.sequenceNumber ?? m.sequence_number);
      entries.push({ entry: e, manifest: m, sequenceNumber: seq });
    }
  }
  return { manifests, entries };
}

/** Table spec "First Row ID Inheritance", in manifest order. */
function inheritFirstRowIds(entries: ManifestEntry[], m: ManifestListEntry): void {
  if (m.content !== 0 || m.first_row_id === null || m.first_row_id === undefined) return;
  let next = BigInt(m.first_row_id);
  for (const e of entries) {
    const f = e.dataFile;
    if (f.content !== CONTENT.DATA || (f.firstRowId !== null && f.firstRowId !== undefined)) continue;
    f.firstRowId = Number.isSafeInteger(Number(next)) ? Number(next) : next;
    next += BigInt(f.recordCount);
  }
}
