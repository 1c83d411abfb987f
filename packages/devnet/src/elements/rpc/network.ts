// elementsd's node and utility RPCs the doctor reads: getnetworkinfo (the version of Elements 23.2, whose RPC the
// devnet follows) and dumpassetlabels (the label/id pairs the node knows: without -assetdir only the pegged asset,
// labelled "bitcoin" by -defaultpeggedassetname's default; rpc/node.cpp).
import { REGTEST_POLICY_ASSET } from '../verify/index.ts';
import type { ElementsMethodTable } from './context.ts';

export const ELEMENTS_VERSION = 230204;

export const networkMethods: ElementsMethodTable = {
  getnetworkinfo: {
    params: [],
    run: () => ({
      version: ELEMENTS_VERSION,
      subversion: '/Elements Core:23.2.4/',
      protocolversion: 70016,
      localservices: '0000000000000409',
      localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED'],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: 0,
      connections_in: 0,
      connections_out: 0,
      networks: ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'].map((name) => ({
        name,
        limited: false,
        reachable: name === 'ipv4' || name === 'ipv6',
        proxy: '',
        proxy_randomize_credentials: false,
      })),
      relayfee: 0.000001,
      incrementalfee: 0.000001,
      localaddresses: [],
      warnings: '',
    }),
  },
  dumpassetlabels: { params: [], run: () => ({ bitcoin: REGTEST_POLICY_ASSET }) },
};
