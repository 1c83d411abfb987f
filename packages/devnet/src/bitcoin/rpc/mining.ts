// Mining, fee estimation and network RPCs (Core's rpc/mining.cpp, rpc/fees.cpp, rpc/net.cpp); generatetoaddress
// and estimatesmartfee's argument checks are shared with Elements (common/chain-rpc.ts).
import { difficulty } from '../block.ts';
import { estimateSmartFee, FLOOR_SAT_PER_KVB, MAX_CONF_TARGET } from '../fees.ts';
import { btcAmount } from '../../common/rpc-json.ts';
import { InvalidAddress, addressToScript } from '../script.ts';
import { estimateSmartFeeArgs, generateBlockMethod, generateToAddressMethod } from '../../common/chain-rpc.ts';
import { parseTx } from '../tx.ts';
import { fromHex } from '../bytes.ts';
import type { CallContext, MethodTable } from './params.ts';

const startedAt = Date.now();
/** The Core release whose RPC behaviour this node follows. */
export const CORE_VERSION = 270000;

export const miningMethods: MethodTable = {
  ...generateToAddressMethod<Uint8Array, CallContext>(addressToScript, InvalidAddress),
  ...generateBlockMethod<Uint8Array, CallContext>(addressToScript, InvalidAddress, (raw) => parseTx(fromHex(raw)).txid),

  getmininginfo: {
    params: [],
    run: (_args, { node }) => ({
      blocks: node.height,
      currentblockweight: node.tip.block.weight,
      currentblocktx: node.tip.block.txs.length - 1,
      difficulty: difficulty(node.tip.block.header.bits),
      networkhashps: 0,
      pooledtx: node.mempool.size,
      chain: 'regtest',
      warnings: '',
    }),
  },

  estimatesmartfee: {
    params: [
      { name: 'conf_target', type: 'number', required: true },
      { name: 'estimate_mode', type: 'string' },
    ],
    run: ([target, mode], { node }) => {
      const confTarget = estimateSmartFeeArgs(target, mode, MAX_CONF_TARGET);
      const estimate = estimateSmartFee(node, confTarget);
      return { feerate: btcAmount(estimate.satPerKvB), blocks: estimate.blocks };
    },
  },

  getnetworkinfo: {
    params: [],
    run: () => ({
      version: CORE_VERSION,
      subversion: '/Satoshi:27.0.0/',
      protocolversion: 70016,
      localservices: '0000000000000c09',
      localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: 0,
      connections_in: 0,
      connections_out: 0,
      networks: ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'].map((name) => ({
        name,
        limited: name !== 'ipv4' && name !== 'ipv6',
        reachable: name === 'ipv4' || name === 'ipv6',
        proxy: '',
        proxy_randomize_credentials: false,
      })),
      relayfee: btcAmount(FLOOR_SAT_PER_KVB),
      incrementalfee: btcAmount(FLOOR_SAT_PER_KVB),
      localaddresses: [],
      warnings: '',
    }),
  },

  getconnectioncount: { params: [], run: () => 0 },

  uptime: { params: [], run: () => Math.floor((Date.now() - startedAt) / 1000) },
};
