// Reads the current snapshot's manifests: the live data files and delete files of a table,
// and the manifests themselves (appends carry them into the next manifest list unchanged).
import type { TableMetadata } from './metadata-json.ts';
import { currentSnapshot } from './snapshot.ts';
import { decodeManifest, decodeManifestList, STATUS, type ManifestEntry, type ManifestListEntry } from './manifests.ts';
import { readBytes } from './file-io.ts';

export interface LiveFiles {
  manifests: ManifestListEntry[];
  /** Live entries (added or existing) of every manifest, with the manifest they came from. */
  entries: { entry: ManifestEntry; manifest: ManifestListEntry; sequenceNumber: bigint }[];
}

export async function readLiveFiles(meta: TableMetadata): Promise<LiveFiles> {
  const snap = currentSnapshot(meta);
  if (!snap) return { manifests: [], entries: [] };
  const manifests = await decodeManifestList(readBytes(snap['manifest-list']));
  const entries: LiveFiles['entries'] = [];
  for (const m of manifests) {
    const { entries: es } = await decodeManifest(readBytes(m.manifest_path));
    for (const e of es) {
      if (e.status === STATUS.DELETED) continue;
      // Entries written with a null sequence number inherit the manifest's.
      const seq = BigInt(e.sequenceNumber ?? m.sequence_number);
      entries.push({ entry: e, manifest: m, sequenceNumber: seq });
    }
  }
  return { manifests, entries };
}
