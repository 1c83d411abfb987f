// v2 Lightning graph calls: a node, its channels, one channel, a search by alias, read from the Lightning node of a
// currency (LND's graph). An unknown currency, node or channel is a 404 as in the reference; malformed ids a 400.
import type { LightningBackend } from '../../lightning/backend.ts';
import type { LightningGraph } from '../../lightning/lnd/graph.ts';
import { lndChannelId } from '../../lightning/lnd/graph.ts';
import { badRequest, notFound } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { documented } from '../schema/documented.ts';

const pubkeyPattern = /^0[23][0-9a-fA-F]{64}$/;
const tags = ['Lightning'];

export function lightningRoutes(router: Router, lightning: Record<string, LightningBackend>): void {
  const graphOf = (currency: string): LightningGraph => {
    const graph = lightning[currency]?.graph?.();
    if (graph === undefined) throw notFound(`could not find lightning currency: ${currency}`);
    return graph;
  };
  const nodeKey = (text: string) => {
    if (!pubkeyPattern.test(text)) throw badRequest('invalid parameter: node');
    return text.toLowerCase();
  };

  documented(router, 'GET', '/v2/lightning/{currency}/node/{node}', { summary: 'A node of the Lightning graph', tags }, async ({ params }) => {
    const graph = graphOf(params.currency);
    const node = await graph.node(nodeKey(params.node));
    if (node === undefined) throw notFound(`could not find node: ${params.node}`);
    return { body: node };
  });

  documented(router, 'GET', '/v2/lightning/{currency}/channels/{node}', { summary: "A node's channels with its own policies", tags }, async ({ params }) => {
    const graph = graphOf(params.currency);
    const channels = await graph.channelsOf(nodeKey(params.node));
    if (channels === undefined) throw notFound(`could not find node: ${params.node}`);
    return { body: channels };
  });

  documented(router, 'GET', '/v2/lightning/{currency}/channel/{id}', { summary: 'A channel and both its policies (LND or BLOCKxTXxOUT ids)', tags }, async ({ params }) => {
    const graph = graphOf(params.currency);
    const id = lndChannelId(params.id);
    // The reference documents only 404 here: an id of neither form names no channel.
    const channel = id === undefined ? undefined : await graph.channel(id);
    if (channel === undefined) throw notFound(`could not find channel: ${params.id.slice(0, 64)}`);
    return { body: channel };
  });

  documented(
    router,
    'GET',
    '/v2/lightning/{currency}/search',
    { summary: 'Nodes whose alias contains the text', tags, query: { alias: { schema: { type: 'string', minLength: 1, maxLength: 64 }, required: true } } },
    async ({ params, query }) => {
      const graph = graphOf(params.currency);
      const alias = query.get('alias');
      if (alias === null || alias === '') throw badRequest('undefined parameter: alias');
      if (alias.length > 64) throw badRequest('invalid parameter: alias');
      return { body: await graph.search(alias) };
    },
  );
}
