// Relative paths of a spec (file sources and sinks, Iceberg warehouses) as the Flink script spells
// them. The runtime resolves them against the spec's folder; Flink would resolve them against the
// working directory of its JobManager and TaskManagers, another folder on another machine. So the
// script says `${PIPEC_SPEC_DIR}/<path>`, a placeholder substituted when the script is deployed,
// like every other `${VAR}` of the script: deterministic (no machine's absolute path in
// generated/), and one variable to set where Flink runs (docs/flink.md, "Relative paths").
import path from 'node:path';

export const SPEC_DIR_VAR = 'PIPEC_SPEC_DIR';

/** An absolute path, a URI (`s3://`, `file:`, `hdfs://`) or a path starting with `${VAR}` stays as written. */
const isAnchored = (p: string): boolean => p.startsWith('/') || p.startsWith('${') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(p);

/** `out/x.ndjson` → `${PIPEC_SPEC_DIR}/out/x.ndjson`; anchored and empty paths unchanged. */
export function flinkPath(p: string): string {
  if (p === '' || isAnchored(p)) return p;
  const rel = path.posix.normalize(p.replaceAll('\\', '/'));
  return rel === '.' ? `\${${SPEC_DIR_VAR}}` : `\${${SPEC_DIR_VAR}}/${rel.replace(/^\.\//, '')}`;
}
