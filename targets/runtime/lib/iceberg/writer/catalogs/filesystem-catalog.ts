// The `filesystem` catalog (the embedded default): a local warehouse folder, one folder per
// table, metadata files `metadata/v<N>.metadata.json`. The commit is atomic because creating
// v<N+1> fails when another writer created it first (hard link onto an existing name).
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog, CommitOutcome, LoadedTable, TableIdent } from './catalog.ts';
import { parseMetadataJson, stringifyMetadataJson, type TableMetadata } from '../metadata-json.ts';
import { createExclusive, readBytes, toLocation, toPath, writeFileAtomic } from '../file-io.ts';

export class FilesystemCatalog implements Catalog {
  constructor(
    readonly name: string,
    private readonly warehouse: string,
  ) {}

  defaultLocation(t: TableIdent): string {
    return toLocation(join(toPath(this.warehouse), ...t.namespace, t.name));
  }

  private metadataDir(t: TableIdent): string {
    return join(toPath(this.defaultLocation(t)), 'metadata');
  }

  async load(t: TableIdent): Promise<LoadedTable | null> {
    const dir = this.metadataDir(t);
    if (!existsSync(dir)) return null;
    const versions = readdirSync(dir)
      .map((f) => /^v(\d+)\.metadata\.json$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
    if (versions.length === 0) return null;
    const v = Math.max(...versions);
    const metadataLocation = toLocation(join(dir, `v${v}.metadata.json`));
    return { metadata: parseMetadataJson(readBytes(metadataLocation).toString('utf8')), metadataLocation };
  }

  private async put(t: TableIdent, version: number, next: TableMetadata): Promise<CommitOutcome> {
    const metadataLocation = toLocation(join(this.metadataDir(t), `v${version}.metadata.json`));
    if (!createExclusive(metadataLocation, stringifyMetadataJson(next))) return { ok: false, reason: 'conflict' };
    // The hint only speeds up readers that use it; `load` lists the folder.
    writeFileAtomic(toLocation(join(this.metadataDir(t), 'version-hint.text')), String(version));
    return { ok: true, table: { metadata: next, metadataLocation } };
  }

  create(t: TableIdent, metadata: TableMetadata): Promise<CommitOutcome> {
    return this.put(t, 1, metadata);
  }

  commit(t: TableIdent, base: LoadedTable, next: TableMetadata): Promise<CommitOutcome> {
    const m = /v(\d+)\.metadata\.json$/.exec(base.metadataLocation);
    return this.put(t, (m ? Number(m[1]) : 0) + 1, next);
  }

  async close(): Promise<void> {}
}
