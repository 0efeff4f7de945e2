// The Iceberg schema and partition-field shapes the writer reads and writes (table spec
// "Schemas and Data Types", "Partition Specs"). Declared here, in the runtime package the
// writer ships in, so the writer needs nothing of the compiler; the compiler's type mapping
// (targets/iceberg/type-map.ts) and field-id lock re-export them.

export type IcebergType =
  | string
  | { type: 'struct'; fields: IcebergField[] }
  | { type: 'list'; 'element-id': number; element: IcebergType; 'element-required': boolean }
  | { type: 'map'; 'key-id': number; key: IcebergType; 'value-id': number; value: IcebergType; 'value-required': boolean };

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
}

export interface PartitionFieldSpec {
  'source-id': number;
  'field-id': number;
  name: string;
  transform: string;
}
