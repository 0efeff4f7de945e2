// Type declaration for a benchmark dependency that ships none.
declare module 'parquetjs-lite';
