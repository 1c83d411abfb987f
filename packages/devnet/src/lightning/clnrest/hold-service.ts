// The hold plugin's gRPC service definition as the devnet's plugin serves it: hold.proto from the SDK package (the
// plugin's own file, which Ferry's client loads as well), read with the options the plugin's messages are shaped for
// (lightning/hold/messages.ts): proto field names, uint64 as decimal strings, bytes as Buffers, enums by name.
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const definition = loadSync(fileURLToPath(import.meta.resolve('@ferry/sdk/lightning/hold/hold.proto')), {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
});

export const HoldService = (loadPackageDefinition(definition).hold as { Hold: ServiceClientConstructor }).Hold;
