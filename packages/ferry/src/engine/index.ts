// The swap engine: SwapEngine implements the SwapService contract the API layer calls.
export { SwapEngine } from './engine.ts';
export type { SwapEngineOptions } from './options.ts';
export * from '@ferry/sdk/protocol/index.js';
