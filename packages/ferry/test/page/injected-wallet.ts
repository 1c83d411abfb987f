// A browser Ethereum wallet for the page tests, as an extension injects one: window.ethereum (EIP-1193) in every page
// of the profile, whose requests go to the devnet's anvil, where an unlocked dev account is the wallet's account, so
// anvil signs what the wallet would (eth_sendTransaction). No account is shown until the page asks for one.
import type { BrowserContext } from 'playwright-core';

/** Puts the wallet into every page of the context; `asked` collects the methods the page called, in order. */
export async function injectWallet(context: BrowserContext, rpcUrl: string, account: string, asked: string[]): Promise<void> {
  let connected = false;
  await context.exposeFunction('ferryTestWallet', async ({ method, params }: { method: string; params?: unknown[] }) => {
    asked.push(method);
    if (method === 'eth_requestAccounts') connected = true;
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: connected ? [account.toLowerCase()] : [] };
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: asked.length, method, params: params ?? [] }),
    });
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  });
  // A string, not a function: the test's compiler adds helpers to functions that the page would not have.
  await context.addInitScript(`
    window.ethereum = {
      async request({ method, params }) {
        const answer = await window.ferryTestWallet({ method, params });
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code, data: answer.error.data });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
  `);
}
