// Bitcoin Core's RPC error codes (src/rpc/protocol.h) and the error every RPC handler throws.

export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PARSE_ERROR = -32700;

export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_DESERIALIZATION_ERROR = -22;
export const RPC_VERIFY_ERROR = -25;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;

export const RPC_WALLET_ERROR = -4;
export const RPC_WALLET_INSUFFICIENT_FUNDS = -6;
export const RPC_WALLET_NOT_FOUND = -18;
export const RPC_WALLET_NOT_SPECIFIED = -19;
export const RPC_WALLET_ALREADY_LOADED = -35;

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}
