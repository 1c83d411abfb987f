// What the RBTC page tests start before their cases and stop after them: a devnet Ferry serving the page (its bundle
// built), an ethers provider on the devnet's anvil, the wallet's account (an unlocked anvil dev account that no
// devnet role uses, so its balance moves only by what the page has the wallet send) and Chromium.
import assert from 'node:assert/strict';
import { JsonRpcProvider, getAddress } from 'ethers';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../client/support.ts';
import { launchChromium } from './support.ts';

export interface RbtcWorld {
  service: Service;
  browser: Browser;
  provider: JsonRpcProvider;
  account: string;
}

export async function startRbtcWorld(chromiumPath: string): Promise<RbtcWorld> {
  const service = await startService();
  await service.ferry.page!.built;
  const provider = new JsonRpcProvider(service.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const unlocked = (await provider.send('eth_accounts', [])) as string[];
  const roles = Object.values(service.info.evm.accounts).map(({ address }) => getAddress(address));
  const account = getAddress(unlocked.at(-1)!);
  assert.ok(!roles.includes(account), 'the wallet account is nobody else’s');
  return { service, provider, account, browser: await launchChromium(chromiumPath) };
}

export async function stopRbtcWorld(world: RbtcWorld | undefined): Promise<void> {
  await world?.browser.close();
  world?.provider.destroy();
  await world?.service.close();
}
