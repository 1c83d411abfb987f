// elementsd's mining and fee RPCs: generatetoaddress (explicit L-BTC coinbases) and estimatesmartfee, which
// answers the relay floor: the devnet's blocks always have room, so the minimum confirms in the next block.
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../../bitcoin/rpc/errors.ts';
import { integerArg } from '../../bitcoin/rpc/params.ts';
import { MIN_RELAY_SAT_PER_KVB } from '../accept.ts';
import { InvalidAddress, addressToScript } from '../params.ts';
import type { ElementsMethodTable } from './context.ts';

const MAX_CONF_TARGET = 1008;

export const miningMethods: ElementsMethodTable = {
  generatetoaddress: {
    params: [
      { name: 'nblocks', type: 'number', required: true },
      { name: 'address', type: 'string', required: true },
      { name: 'maxtries', type: 'number' },
    ],
    run: async ([nblocks, address], { node }) => {
      let script: Buffer;
      try {
        script = addressToScript(address as string);
      } catch (error) {
        if (error instanceof InvalidAddress) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Error: Invalid address');
        throw error;
      }
      const count = integerArg(nblocks, 'nblocks');
      return count > 0 ? await node.mine(count, script) : [];
    },
  },

  estimatesmartfee: {
    params: [
      { name: 'conf_target', type: 'number', required: true },
      { name: 'estimate_mode', type: 'string' },
    ],
    run: ([target, mode]) => {
      const confTarget = integerArg(target, 'conf_target');
      if (confTarget < 1 || confTarget > MAX_CONF_TARGET) {
        throw new RpcFailure(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
      }
      if (mode !== undefined && !['unset', 'economical', 'conservative'].includes((mode as string).toLowerCase())) {
        throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
      }
      // BTC/kvB like Core; elementsd never answers for a 1-block target.
      return { feerate: Number(MIN_RELAY_SAT_PER_KVB) / 1e8, blocks: Math.max(2, confTarget) };
    },
  },

  getconnectioncount: { params: [], run: () => 0 },
};
