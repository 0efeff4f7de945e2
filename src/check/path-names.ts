// Names that become file or folder names in `generated/`: the pipeline's name (its folder),
// Iceberg sink names (`iceberg/<sink>/`) and compaction policy names
// (`iceberg/maintenance/<policy>.json`). A quoted identifier may hold any character, so these
// are checked here, at check time, before any target joins them into a path: a name like
// `../../x` must never let `pipec build` write (or clean) outside `--out`. The build's writer
// checks the final paths again (src/build/write-outputs.ts); this is the first line, with a span.
import type { PipeFile } from '../syntax/ast.ts';
import type { PlanDoc } from '../plan/ir.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan } from '../diagnostics/span.ts';

/** Longest name accepted, in UTF-8 bytes: file systems allow 255, targets add suffixes (`.spark.sql`). */
export const MAX_PATH_NAME_BYTES = 200;

/**
 * Device names Windows reserves in every folder, with or without an extension (`con.json`).
 * ¹²³ are written as escapes: the CLI bundle stays ASCII (scripts/bundle.mjs).
 */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\..*)?$/i;
/** Characters Windows forbids in file names (a generated/ tree is committed and cloned anywhere). */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

/**
 * Why `name` cannot be one segment of a path, or null when it can. Rejected: empty, `.` and
 * `..`, path separators, control characters (C0, DEL, C1 — NUL ends a C path, newlines break
 * listings), what Windows cannot store (reserved device names, `<>:"|?*`, a trailing dot or
 * space), and names over MAX_PATH_NAME_BYTES.
 */
export function unsafePathNameReason(name: string): string | null {
  if (name === '') return 'is empty';
  if (name === '.' || name === '..') return `is '${name}', which names a folder, not a file`;
  if (/[/\\]/.test(name)) return 'contains a path separator (/ or \\)';
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(name);
  if (control) return `contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const forbidden = WINDOWS_FORBIDDEN.exec(name);
  if (forbidden) return `contains '${forbidden[0]}', which Windows does not allow in file names`;
  if (/[. ]$/.test(name)) return 'ends with a dot or a space, which Windows drops from file names';
  if (WINDOWS_RESERVED.test(name)) return 'is a device name Windows reserves (CON, PRN, AUX, NUL, COM1-9, LPT1-9)';
  if (Buffer.byteLength(name, 'utf8') > MAX_PATH_NAME_BYTES) return `is longer than ${MAX_PATH_NAME_BYTES} bytes`;
  return null;
}

/** How a name is shown in a message: control characters escaped, never raw. */
export function showName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** Reports `unsafe-path-name` for every name of `plan` that a target turns into a path. */
export function checkPathNames(file: PipeFile, plan: PlanDoc, relFile: string, bag: DiagnosticBag): void {
  const pipelineStmt = file.statements.find((s) => s.kind === 'pipeline');
  const pipelineReason = unsafePathNameReason(plan.pipeline.name);
  if (pipelineReason) {
    bag.report('unsafe-path-name', pipelineStmt?.name.span ?? syntheticSpan(relFile), {
      kind: 'pipeline',
      name: showName(plan.pipeline.name),
      reason: pipelineReason,
      fromFileName: !pipelineStmt,
    });
  }
  const icebergSinks = new Set(plan.sinks.filter((s) => s.connector === 'iceberg').map((s) => s.name));
  const policies = new Set(plan.compactions.map((c) => c.name));
  for (const st of file.statements) {
    const kind = st.kind === 'sink' && icebergSinks.has(st.name.name) ? 'Iceberg sink' : st.kind === 'compaction' && policies.has(st.name.name) ? 'compaction policy' : null;
    if (!kind) continue;
    const reason = unsafePathNameReason(st.name.name);
    if (reason) bag.report('unsafe-path-name', st.name.span, { kind, name: showName(st.name.name), reason, fromFileName: false });
  }
}
