// Opens the catalog a `CREATE CATALOG` statement describes, with its options' values as
// resolved for this run (profile and environment). Relative warehouse paths resolve against
// the spec's folder (`pipec compact`) or the pipeline's base dir (the runtime's Iceberg sink).
import { isAbsolute, resolve } from 'node:path';
import type { Catalog } from './catalog.ts';
import { FilesystemCatalog } from './filesystem-catalog.ts';
import { SqlCatalog } from './sql-catalog.ts';
import { RestCatalog } from './rest-catalog.ts';
import { toLocation } from '../file-io.ts';

function warehouseLocation(value: string | undefined, baseDir: string): string {
  if (!value) throw new Error('the catalog has no warehouse option');
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  return toLocation(isAbsolute(value) ? value : resolve(baseDir, value));
}

/** What opening a catalog needs of a `CREATE CATALOG` (the plan's IrCatalog has this shape). */
export interface CatalogSpec {
  name: string;
  type: 'sql' | 'rest' | 'filesystem';
  options: Record<string, { value: string }>;
}

export async function openCatalog(c: CatalogSpec, baseDir: string): Promise<Catalog> {
  return openCatalogWith(c.name, c.type, Object.fromEntries(Object.entries(c.options).map(([k, o]) => [k, o.value])), baseDir);
}

/** The same, from option values already resolved (what generated runtime code holds). */
export async function openCatalogWith(name: string, type: CatalogSpec['type'], options: Record<string, string>, baseDir: string): Promise<Catalog> {
  const opt = (k: string): string | undefined => options[k];
  switch (type) {
    case 'filesystem':
      return new FilesystemCatalog(name, warehouseLocation(opt('warehouse'), baseDir));
    case 'sql':
      return SqlCatalog.open(name, opt('uri') ?? '', warehouseLocation(opt('warehouse'), baseDir));
    case 'rest':
      return new RestCatalog(name, opt('uri') ?? '', { warehouse: opt('warehouse'), token: opt('token'), credential: opt('credential') });
  }
}
