// Diagnostic codes of the Iceberg target and writer.
import { def } from '../diagnostic.ts';

export const icebergCodes = {
  'iceberg-lossy-type': def<{ sink: string; column: string; detail: string }>({
    severity: 'warning',
    title: 'an Iceberg column cannot hold the value exactly',
    message: (p) => `sink '${p.sink}': column ${p.column}: ${p.detail}`,
    help: () => "set format_version = '3' on the sink, or cast the column to a type Iceberg v2 holds exactly",
    explain:
      'Iceberg format version 2 stores timestamps in microseconds. A TIMESTAMP(9) column written to a v2 table loses its nanoseconds. Format version 3 adds timestamp_ns and timestamptz_ns, which keep them.',
  }),
  'iceberg-unknown-partition-column': def<{ sink: string; column: string }>({
    severity: 'error',
    title: 'partition or sort column not in the sink',
    message: (p) => `sink '${p.sink}': column ${p.column} is not a column of the rows the sink receives`,
    help: () => 'partition_by and sort_by may name only columns of the view the sink reads',
    explain: 'An Iceberg partition field or sort field refers to a source column of the table schema by field id. The column named is not among the columns the sink writes.',
  }),
} as const;
