// Command-line parsing: positional words plus --flag value / --flag=value / --switch.

export interface Args {
  words: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[]): Args {
  const words: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--') && valued.has(arg.slice(2))) flags[arg.slice(2)] = argv[++i];
      else flags[arg.slice(2)] = true;
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}

/** Flags that take a value. */
const valued = new Set([
  'config', 'data-dir', 'node', 'memo', 'wallet', 'chain',
  // ferry swap
  'service', 'client-dir', 'address', 'amount', 'onchain-amount', 'invoice', 'file', 'lockup', 'network', 'bitcoin-rpc', 'elements-rpc', 'fee-rate', 'from', 'to',
  'server-amount', 'refund-address', 'mnemonic', 'xpub', 'evm-rpc', 'evm-key', 'evm-mnemonic', 'evm-account',
  // ferry admin
  'status', 'limit',
]);
