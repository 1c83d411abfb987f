// The onion-message hooks of a devnet CLN node (lightningd's `onion_message_recv` / `_secret`): plugins — here the
// hold plugin's OnionMessages stream — see each message the node receives for itself, in order, before the node
// handles it; the first that answers `resolve` takes it, `continue` passes it on, as lightningd chains hooks.
import type { LightningNetwork } from '../network.ts';
import type { HeldOnionMessage, OnionHookAction, OnionMessageHandler, OnionMessageStream } from '@ferry/sdk/lightning/onion-message-hook.js';

export class OnionMessageHooks implements OnionMessageStream {
  private readonly handlers = new Set<OnionMessageHandler>();

  onMessage(handler: OnionMessageHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Runs the hooks; `continue` when none is registered or none takes the message. */
  async dispatch(message: HeldOnionMessage): Promise<OnionHookAction> {
    for (const handler of [...this.handlers]) {
      if ((await handler(message)) === 'resolve') return 'resolve';
    }
    return 'continue';
  }
}

const hooks = new WeakMap<LightningNetwork, Map<string, OnionMessageHooks>>();

/** The hooks of one node of a devnet network, made on first use. */
export function onionHooksOf(network: LightningNetwork, node: string): OnionMessageHooks {
  let byNode = hooks.get(network);
  if (byNode === undefined) hooks.set(network, (byNode = new Map()));
  let mine = byNode.get(node);
  if (mine === undefined) byNode.set(node, (mine = new OnionMessageHooks()));
  return mine;
}
