// Where the running devnet publishes its endpoints and credentials (devnet.json), and reading it back: a module of
// its own so that `ferry devnet <tool>` and `ferry devnet info` read the file without loading the devnet itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevnetInfo } from './index.ts';

export const devnetInfoPath = (dataDir: string): string => join(dataDir, 'devnet.json');

export function readDevnetInfo(dataDir: string): DevnetInfo {
  return JSON.parse(readFileSync(devnetInfoPath(dataDir), 'utf8')) as DevnetInfo;
}
