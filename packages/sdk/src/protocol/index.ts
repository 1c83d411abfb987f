// The swap interface's wire shapes, errors and the engine contract, shared by src/api, src/engine and src/client.
export * from './errors.ts';
export * from './evm-restore.ts';
export type * from './service.ts';
export type * from './wire.ts';
