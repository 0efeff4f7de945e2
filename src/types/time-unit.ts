// The time units of the language (INTERVAL, EXTRACT, FLOOR ... TO, TIMESTAMPADD): shared by the
// syntax tree and the plan IR, so the IR need not import the syntax tree.
export type TimeUnit = 'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
