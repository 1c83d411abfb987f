// The checkers' libraries (ajv, the proto loader), loaded on the first exchange a process checks: every process of a
// test run loads the observer, most (the `ferry` commands a test starts) never see an exchange, and importing these
// cost each about 0.07 s of CPU. Loaded with require, synchronously: the observer is called in the middle of a
// devnet node's answer.
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type * as ProtoLoaderModule from '@grpc/proto-loader';

const requireLibrary = createRequire(import.meta.url);

export const ajvClass = (): typeof AjvModule.Ajv => (requireLibrary('ajv') as typeof AjvModule).Ajv;
export const protoLoader = (): typeof ProtoLoaderModule => requireLibrary('@grpc/proto-loader') as typeof ProtoLoaderModule;
