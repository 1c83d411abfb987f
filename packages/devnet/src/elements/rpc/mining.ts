// elementsd's mining and fee RPCs: generatetoaddress and generateblock (shared, common/chain-rpc.ts; the node mines explicit L-BTC
// coinbases) and estimatesmartfee, which answers the relay floor: the devnet's blocks always have room.
import { estimateSmartFeeArgs, generateBlockMethod, generateToAddressMethod } from '../../common/chain-rpc.ts';
import { parseTx } from '../tx.ts';
import { satToBtc } from '../../bitcoin/amount.ts';
import { MIN_RELAY_SAT_PER_KVB } from '../accept.ts';
import { InvalidAddress, addressToScript } from '../params.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';

const MAX_CONF_TARGET = 1008;

export const miningMethods: ElementsMethodTable = {
  ...generateToAddressMethod<Buffer, ElementsCallContext>(addressToScript, InvalidAddress),
  ...generateBlockMethod<Buffer, ElementsCallContext>(addressToScript, InvalidAddress, (raw) => parseTx(Buffer.from(raw, 'hex')).txid),

  estimatesmartfee: {
    params: [
      { name: 'conf_target', type: 'number', required: true },
      { name: 'estimate_mode', type: 'string' },
    ],
    run: ([target, mode]) => {
      const confTarget = estimateSmartFeeArgs(target, mode, MAX_CONF_TARGET);
      // BTC/kvB like Core; elementsd never answers for a 1-block target.
      return { feerate: satToBtc(MIN_RELAY_SAT_PER_KVB), blocks: Math.max(2, confTarget) };
    },
  },

  getconnectioncount: { params: [], run: () => 0 },
};
