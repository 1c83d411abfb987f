// What every Elements RPC method runs with, and the method table type over it.
import type { Method } from '../../bitcoin/rpc/params.ts';
import type { ElementsNode } from '../node.ts';

export interface ElementsCallContext {
  node: ElementsNode;
}

export type ElementsMethodTable = Record<string, Method<ElementsCallContext>>;
