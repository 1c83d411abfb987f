// The hold plugin's gRPC service as Ferry's client loads it: hold.proto and the messages' shapes come from the SDK
// package (lightning/hold/), which the devnet's plugin reads too. Messages are read with proto field names, uint64
// as decimal strings, bytes as Buffers and enums by name.
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

export type * from '@ferry/sdk/lightning/hold/messages.js';

const definition = loadSync(fileURLToPath(import.meta.resolve('@ferry/sdk/lightning/hold/hold.proto')), {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
});

/** The generated client class of `hold.Hold`; its `service` is what a server implements. */
export const HoldService = (loadPackageDefinition(definition).hold as { Hold: ServiceClientConstructor }).Hold;
