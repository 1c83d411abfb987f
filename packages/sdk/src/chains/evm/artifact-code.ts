// Whether an address runs a contract of boltz-core's: its runtime code equals the Foundry artifact's deployed
// bytecode with the immutables (the EIP-712 domain: chain id and the contract's own address) blanked. Shared by the
// client SDK (checking the service's contract before funds move) and the devnet (finding its deployed contracts).

export interface DeployedBytecode {
  object: string;
  immutableReferences?: Record<string, { start: number; length: number }[]>;
}

export function runsArtifactCode(code: string, deployed: DeployedBytecode): boolean {
  const { object, immutableReferences = {} } = deployed;
  const blank = (hex: string): string => {
    let out = hex.toLowerCase().replace(/^0x/, '');
    for (const { start, length } of Object.values(immutableReferences).flat()) {
      out = out.slice(0, start * 2) + '00'.repeat(length) + out.slice((start + length) * 2);
    }
    return out;
  };
  return code !== '0x' && blank(code) === blank(object);
}
