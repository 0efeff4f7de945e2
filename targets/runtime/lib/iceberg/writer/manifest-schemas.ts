// Avro schemas of manifest files and manifest lists, format versions 2 and 3, with the field
// ids the Iceberg table spec assigns (readers resolve fields by id). Maps with non-string keys
// are arrays of key/value records with logicalType "map", as the spec prescribes. v3 adds row
// lineage (`first_row_id` of data files and of data manifests) and the deletion-vector fields
// (`referenced_data_file`, `content_offset`, `content_size_in_bytes`); v2 files are unchanged.
import type { PartitionFieldSpec } from './field-types.ts';
import { decimalRequiredBytes } from './single-value.ts';

type AvroSchema = Record<string, unknown> | string | unknown[];

const optional = (type: AvroSchema): AvroSchema => ['null', type];

function intMap(fieldId: number, name: string, keyId: number, valueId: number, valueType: string): Record<string, unknown> {
  return {
    name,
    'field-id': fieldId,
    default: null,
    type: optional({
      type: 'array',
      logicalType: 'map',
      items: {
        type: 'record',
        name: `k${keyId}_v${valueId}`,
        fields: [
          { name: 'key', type: 'int', 'field-id': keyId },
          { name: 'value', type: valueType, 'field-id': valueId },
        ],
      },
    }),
  };
}

/** Avro type of a partition value, by the transform's result type. */
function partitionAvroType(resultType: string): AvroSchema {
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(resultType);
  if (dec) return { type: 'fixed', name: `decimal_${dec[1]}_${dec[2]}`, size: decimalRequiredBytes(Number(dec[1])), logicalType: 'decimal', precision: Number(dec[1]), scale: Number(dec[2]) };
  const table: Record<string, AvroSchema> = {
    boolean: 'boolean',
    int: 'int',
    long: 'long',
    float: 'float',
    double: 'double',
    string: 'string',
    binary: 'bytes',
    date: { type: 'int', logicalType: 'date' },
    timestamp: { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false },
    timestamptz: { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true },
  };
  const t = table[resultType];
  if (!t) throw new Error(`no Avro type for partition values of type ${resultType}`);
  return t;
}

/** data_file fields a v3 manifest adds after `sort_order_id`. */
const V3_DATA_FILE_FIELDS = [
  { name: 'first_row_id', type: optional('long'), default: null, 'field-id': 142 },
  { name: 'referenced_data_file', type: optional('string'), default: null, 'field-id': 143 },
  { name: 'content_offset', type: optional('long'), default: null, 'field-id': 144 },
  { name: 'content_size_in_bytes', type: optional('long'), default: null, 'field-id': 145 },
];

export function manifestEntrySchema(partitionFields: (PartitionFieldSpec & { resultType: string })[], formatVersion = 2): Record<string, unknown> {
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      { name: 'status', type: 'int', 'field-id': 0 },
      { name: 'snapshot_id', type: optional('long'), default: null, 'field-id': 1 },
      { name: 'sequence_number', type: optional('long'), default: null, 'field-id': 3 },
      { name: 'file_sequence_number', type: optional('long'), default: null, 'field-id': 4 },
      {
        name: 'data_file',
        'field-id': 2,
        type: {
          type: 'record',
          name: 'r2',
          fields: [
            { name: 'content', type: 'int', 'field-id': 134 },
            { name: 'file_path', type: 'string', 'field-id': 100 },
            { name: 'file_format', type: 'string', 'field-id': 101 },
            {
              name: 'partition',
              'field-id': 102,
              type: {
                type: 'record',
                name: 'r102',
                fields: partitionFields.map((p) => ({ name: p.name, type: optional(partitionAvroType(p.resultType)), default: null, 'field-id': p['field-id'] })),
              },
            },
            { name: 'record_count', type: 'long', 'field-id': 103 },
            { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
            intMap(108, 'column_sizes', 117, 118, 'long'),
            intMap(109, 'value_counts', 119, 120, 'long'),
            intMap(110, 'null_value_counts', 121, 122, 'long'),
            intMap(137, 'nan_value_counts', 138, 139, 'long'),
            intMap(125, 'lower_bounds', 126, 127, 'bytes'),
            intMap(128, 'upper_bounds', 129, 130, 'bytes'),
            { name: 'key_metadata', type: optional('bytes'), default: null, 'field-id': 131 },
            { name: 'split_offsets', type: optional({ type: 'array', items: 'long', 'element-id': 133 }), default: null, 'field-id': 132 },
            { name: 'equality_ids', type: optional({ type: 'array', items: 'int', 'element-id': 136 }), default: null, 'field-id': 135 },
            { name: 'sort_order_id', type: optional('int'), default: null, 'field-id': 140 },
            ...(formatVersion >= 3 ? V3_DATA_FILE_FIELDS : []),
          ],
        },
      },
    ],
  };
}

export const MANIFEST_FILE_SCHEMA: Record<string, unknown> = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    {
      name: 'partitions',
      'field-id': 507,
      default: null,
      type: optional({
        type: 'array',
        'element-id': 508,
        items: {
          type: 'record',
          name: 'r508',
          fields: [
            { name: 'contains_null', type: 'boolean', 'field-id': 509 },
            { name: 'contains_nan', type: optional('boolean'), default: null, 'field-id': 518 },
            { name: 'lower_bound', type: optional('bytes'), default: null, 'field-id': 510 },
            { name: 'upper_bound', type: optional('bytes'), default: null, 'field-id': 511 },
          ],
        },
      }),
    },
    { name: 'key_metadata', type: optional('bytes'), default: null, 'field-id': 519 },
  ],
};

/** v3 manifest lists: the v2 fields plus the starting row id of each data manifest. */
export const MANIFEST_FILE_SCHEMA_V3: Record<string, unknown> = {
  ...MANIFEST_FILE_SCHEMA,
  fields: [...(MANIFEST_FILE_SCHEMA.fields as unknown[]), { name: 'first_row_id', type: optional('long'), default: null, 'field-id': 520 }],
};
