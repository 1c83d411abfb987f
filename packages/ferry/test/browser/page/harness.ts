// The web page's own script: what a web wallet does with the SDK, callable by the test through page.evaluate. It
// runs in Chromium, bundled apart from the SDK (whose import resolves to the measured bundle, ./sdk.js): keys and
// preimages are made here, answers checked here, claims signed and refund files drawn here. Swaps are kept in the
// page's localStorage. What goes back to the test is JSON (bigints as strings) and base64 for bytes.
import {
  BrowserStorage,
  ClientStore,
  SwapClient,
  followSwap,
  refundFileJson,
  refundFileOf,
  refundFilePng,
  type FollowEvent,
  type SwapRecord,
} from '@ferry/sdk/client/index.js';

let client: SwapClient | undefined;
let store: ClientStore | undefined;
const records = new Map<string, SwapRecord>();

const connected = (): SwapClient => {
  if (client === undefined) throw new Error('connect first');
  return client;
};

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

const ferryPage = {
  /** The SDK's client for a Ferry at `serviceUrl` (another origin), keeping swaps in this page's localStorage. */
  connect(serviceUrl: string): void {
    store = new ClientStore(new BrowserStorage('ferry-browser-test/'));
    client = new SwapClient({ serviceUrl, network: 'regtest', store });
  },

  async createReverse(currency: string, invoiceAmount: number) {
    const record = await connected().createReverse({ currency, invoiceAmount });
    records.set(record.id, record);
    return json(record) as SwapRecord & { type: 'reverse' };
  },

  async createSubmarine(currency: string, invoice: string) {
    const record = await connected().createSubmarine({ currency, invoice });
    records.set(record.id, record);
    return json(record) as SwapRecord & { type: 'submarine' };
  },

  /**
   * A reverse swap whose creation answer is rewritten on its way into the page to carry `invoice` (someone else's):
   * a lying service, or one in the middle. The page's SDK must refuse it before the invoice is shown; what it threw
   * comes back, and how many swaps the store keeps afterwards.
   */
  async createReverseLiedTo(currency: string, invoiceAmount: number, invoice: string) {
    const honest = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const response = await honest(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!(init?.method === 'POST' && url.endsWith('/v2/swap/reverse'))) return response;
      const body = { ...((await response.json()) as object), invoice };
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
    try {
      const record = await connected().createReverse({ currency, invoiceAmount });
      return { refused: undefined, kept: store!.list().length, id: record.id };
    } catch (error) {
      return { refused: `${(error as Error).name}: ${(error as Error).message}`, kept: store!.list().length };
    } finally {
      globalThis.fetch = honest;
    }
  },

  /** Follows a swap to its end: co-signs, claims or refunds to `destination` as its statuses call for. */
  async follow(id: string, destination: string) {
    const record = records.get(id);
    if (record === undefined) throw new Error(`no swap ${id} made in this page`);
    const stream = connected().statusStream({ pollIntervalMs: 500 });
    const events: FollowEvent[] = [];
    // A step that failed for good (a warning without "will retry") fails the test now, with its message, rather
    // than leaving the swap to wait for a status that may never come.
    const stop = new AbortController();
    const onEvent = (event: FollowEvent) => {
      events.push(event);
      if (event.type === 'warning' && !event.message.includes('will retry')) stop.abort();
    };
    try {
      const result = await followSwap(connected(), record, { stream, destination: async () => destination, onEvent, signal: stop.signal });
      return json({ success: result.success, status: result.status, message: result.message, events }) as {
        success: boolean;
        status: string;
        message?: string;
        events: FollowEvent[];
      };
    } finally {
      stream.close();
    }
  },

  /** A submarine swap's refund file, as a wallet offers it for download: JSON text and a PNG picture, each a Blob. */
  async refundFiles(id: string) {
    const record = records.get(id);
    if (record === undefined || record.type !== 'submarine') throw new Error(`no submarine swap ${id} made in this page`);
    const file = refundFileOf(record);
    const jsonBlob = new Blob([refundFileJson(file)], { type: 'application/json' });
    const pngBlob = new Blob([new Uint8Array(refundFilePng(file))], { type: 'image/png' });
    return {
      json: await jsonBlob.text(),
      jsonType: jsonBlob.type,
      png: base64(new Uint8Array(await pngBlob.arrayBuffer())),
      pngType: pngBlob.type,
    };
  },

  /** The swap as this page's store keeps it (read back from localStorage). */
  stored(id: string) {
    if (store === undefined) throw new Error('connect first');
    return json(store.load(id)) as SwapRecord;
  },

  /** The keys of the page's localStorage: where the store put things. */
  localStorageKeys(): string[] {
    return Object.keys((globalThis as unknown as { localStorage: object }).localStorage);
  },
};

export type FerryPage = typeof ferryPage;
(globalThis as { ferryPage?: FerryPage }).ferryPage = ferryPage;
