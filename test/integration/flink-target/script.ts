// Helpers of the Flink target tests: split a generated pipeline.sql into the parts
// test/support/flink.ts runs (SETs as config, DDL, the statement set's INSERTs), and bring rows of
// either engine to one comparable text (timestamps as epoch ms, numbers by value).

/** The script's statements: SETs as config, the EXECUTE STATEMENT SET body as inserts, the rest as DDL. */
export function splitScript(sql: string): { config: Record<string, string>; ddl: string[]; inserts: string[] } {
  const config: Record<string, string> = {};
  const ddl: string[] = [];
  const inserts: string[] = [];
  const body = sql.split('\n').filter((l) => !l.startsWith('--')).join('\n');
  const [head, set] = body.split('EXECUTE STATEMENT SET\nBEGIN\n');
  for (const stmt of head!.split(/;\n/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^SET '([^']+)' = '([^']*)'$/.exec(stmt);
    if (m) config[m[1]!] = m[2]!;
    else ddl.push(stmt);
  }
  for (const stmt of (set ?? '').replace(/END;\s*$/, '').split(/;\n/).map((s) => s.trim()).filter(Boolean)) inserts.push(stmt);
  return { config, ddl, inserts };
}

/** Rows as sorted canonical JSON texts: timestamps as epoch ms, decimals and integers by value. */
export const canon = (rows: Record<string, unknown>[]): string[] =>
  rows
    .map((r) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(r)
            .sort(([a], [b]) => a.localeCompare(b))
            // Timestamps as epoch ms, decimals by value: each engine prints them its own way.
            .map(([k, v]) => [k, typeof v === 'string' && /^\d{4}-\d\d-\d\d[ T]/.test(v) ? Date.parse(v.replace(' ', 'T') + (v.endsWith('Z') ? '' : 'Z')) : /^-?\d+(\.\d+)?$/.test(String(v)) ? Number(v) : v]),
        ),
      ),
    )
    .sort();
