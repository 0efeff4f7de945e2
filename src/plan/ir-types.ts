// Re-exports of the type model the IR uses, so targets import everything IR from src/plan/.
export type { SqlType, RowField } from '../types/sql-type.ts';
export type { TimeUnit as TimeUnitName } from '../types/time-unit.ts';
