// The configuration schema: every key Ferry understands, its type and its default.
// Zero-config (no file, no environment) means: regtest, embedded devnet, SQLite in the data directory,
// API on 127.0.0.1:9001.

export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'port'
  | 'level'
  | 'network'
  | 'lightningBackend'
  | 'address'
  | 'addresses'
  | 'confirmations';

export interface Field {
  type: FieldType;
  default?: string | number | boolean | Record<string, string>;
  doc: string;
}

export type Section = { [key: string]: Field | Section };

/** The settings of one pair: the BTC/BTC pair's [pair] section, and each entry of the [[pairs]] list. */
export const pairFields: Section = {
  rate: { type: 'number', default: 1, doc: 'exchange rate' },
  feePercentage: { type: 'number', default: 0.25, doc: 'percent fee of reverse swaps (Lightning → chain)' },
  feePercentageSwapIn: { type: 'number', default: 0.1, doc: 'percent fee of submarine swaps (chain → Lightning)' },
  feePercentageChain: { type: 'number', default: 0.1, doc: 'percent fee of chain swaps (chain → chain, on the user lockup)' },
  minimal: { type: 'integer', default: 10_000, doc: 'smallest swap, sat' },
  maximal: { type: 'integer', default: 10_000_000, doc: 'largest swap, sat' },
  maximalZeroConf: {
    type: 'integer',
    default: '',
    doc: 'largest unconfirmed user lockup accepted (0-conf), sat; 0: off; empty: 1000000 on regtest, 0 elsewhere (full-RBF nodes replace unconfirmed transactions)',
  },
  confirmations: {
    type: 'confirmations',
    default: '',
    doc: 'blocks a user lockup must be deep in before Ferry pays or locks against it: a number, or tiers by amount "UPTO_SAT:BLOCKS,...,*:BLOCKS"; empty: the chain\'s default for the network (src/swaps/confirmations.ts)',
  },
  timeoutReverse: { type: 'integer', default: 144, doc: 'reverse swap timeout, blocks' },
  timeoutSwapMinimal: { type: 'integer', default: 144, doc: 'submarine swap timeout (shortest), blocks' },
  timeoutSwapMaximal: { type: 'integer', default: 288, doc: 'submarine swap timeout (longest), blocks' },
};

/**
 * Defaults of a [[pairs]] entry that differ from [pair]'s for a known pair: Liquid's one-minute blocks take ten
 * times as many blocks for the same time (the reference deployment's 1440 / 2880).
 */
export const knownPairDefaults: Record<string, Record<string, number>> = {
  'L-BTC/BTC': { timeoutReverse: 1440, timeoutSwapMinimal: 1440, timeoutSwapMaximal: 2880 },
  // RSK's 30-second blocks: twenty for each of Bitcoin's; no 0-conf (contract events are read once confirmed).
  'RBTC/BTC': { timeoutReverse: 2880, timeoutSwapMinimal: 2880, timeoutSwapMaximal: 5760, maximalZeroConf: 0 },
};

/** An entry of [[pairs]]: a pair id and its settings. */
export const pairEntry: Section = {
  id: { type: 'string', default: '', doc: '"BASE/QUOTE": the chain currency, then the Lightning currency, e.g. "BTC/BTC"' },
  ...pairFields,
};

export const schema: Section = {
  network: { type: 'network', default: 'regtest', doc: 'bitcoin network: regtest, testnet, signet or mainnet' },
  dataDir: { type: 'string', default: './data', doc: 'directory for the database, devnet state and devnet.json' },
  api: {
    host: { type: 'string', default: '127.0.0.1', doc: 'address the HTTP API listens on' },
    port: { type: 'port', default: 9001, doc: 'port of the HTTP API (also /v2/ws and /streamswapstatus)' },
    maxBodyBytes: { type: 'integer', default: 1_048_576, doc: 'larger request bodies are answered with 413' },
  },
  log: {
    level: { type: 'level', default: 'info', doc: 'debug, info, warn or error' },
    format: { type: 'string', default: 'auto', doc: 'json (one object a line), text, or auto: json unless stdout is a terminal' },
  },
  /** Secrets at rest (src/secrets; docs/going-live.md). */
  secrets: {
    passphraseFile: {
      type: 'string',
      default: '',
      doc: 'file holding the passphrase of the encrypted mnemonic (and other encrypted secrets); empty: FERRY_PASSPHRASE, or asked on a terminal',
    },
    allowPlaintextMainnet: { type: 'boolean', default: false, doc: 'let Ferry start on mainnet with its mnemonic in plain text' },
  },
  webhooks: {
    secret: {
      type: 'string',
      default: '',
      doc: 'HMAC-SHA256 key signing webhook calls; empty: <dataDir>/webhook-secret, created (0600) on first start',
    },
    allowHttp: { type: 'boolean', default: false, doc: 'accept http:// webhook URLs (https only otherwise, as the reference)' },
    allowPrivate: { type: 'boolean', default: false, doc: 'accept webhook hosts resolving to private, loopback or link-local addresses' },
    attempts: { type: 'integer', default: 8, doc: 'calls per webhook delivery before giving up' },
    backoffMs: { type: 'integer', default: 1000, doc: 'first retry delay of a failed webhook call, doubled each time' },
    timeoutMs: { type: 'integer', default: 5000, doc: 'time a webhook receiver has to answer' },
  },
  /** Operator alerts for money events (src/alerts; docs/money-safety.md, "Operator alerts"). */
  alerts: {
    webhookUrl: {
      type: 'string',
      default: '',
      doc: "the operator's alert receiver: each alert raised or cleared is POSTed there, signed (HMAC-SHA256); empty: no webhook",
    },
    webhookSecret: {
      type: 'string',
      default: '',
      doc: 'HMAC-SHA256 key signing operator alert calls; empty: <dataDir>/alerts-webhook-secret, created (0600) on first start',
    },
    webhookAttempts: { type: 'integer', default: 10, doc: 'calls per operator alert before giving up' },
    webhookBackoffMs: { type: 'integer', default: 1000, doc: 'first retry delay of a failed operator alert call, doubled each time (at most 10 min)' },
    webhookTimeoutMs: { type: 'integer', default: 5000, doc: 'time the alert receiver has to answer' },
    unconfirmedAfterBlocks: {
      type: 'integer',
      default: 6,
      doc: "blocks one of Ferry's own lockups, claims or refunds may wait unconfirmed before the 'unconfirmed' alert (0: never)",
    },
    checkIntervalMs: {
      type: 'integer',
      default: 60_000,
      doc: "how often operator wallets and Lightning channels are checked against the pairs' limits, and reverse swaps' held payments (also at start; 0: at start only)",
    },
  },
  admin: {
    enabled: { type: 'boolean', default: true, doc: 'serve `ferry admin` on a unix socket (never on the public API)' },
    socketPath: { type: 'string', default: '', doc: 'the admin socket; empty: <dataDir>/admin.sock' },
  },
  page: {
    enabled: { type: 'boolean', default: true, doc: 'serve the swap page (a web app for swapping by hand) on the API listener' },
    path: { type: 'string', default: '/', doc: 'where the page is served: "/" or a path like "/swap"; its files go under <path>/page/' },
  },
  metrics: {
    enabled: { type: 'boolean', default: true, doc: 'serve Prometheus metrics at GET /metrics on their own listener' },
    host: { type: 'string', default: '127.0.0.1', doc: 'address the metrics listener binds (keep it private)' },
    port: { type: 'port', default: 9002, doc: 'port of the metrics listener' },
  },
  /** Limits of the API against floods (src/api/limits/options.ts); 0 turns one off. */
  limits: {
    readBurst: { type: 'integer', default: 100, doc: 'requests per client address at once (every call but swap creation)' },
    readPerSecond: { type: 'number', default: 20, doc: 'requests per second per client address, sustained' },
    createBurst: { type: 'integer', default: 20, doc: 'swap creations (POST /v2/swap/*, /createswap) per address at once' },
    createPerSecond: { type: 'number', default: 1, doc: 'swap creations per second per client address, sustained' },
    trustedProxies: {
      type: 'string',
      default: '',
      doc: 'comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client; empty: the header is ignored',
    },
    maxConnections: { type: 'integer', default: 20_000, doc: 'sockets the API holds at once (HTTP, SSE, WebSocket)' },
    headersTimeoutMs: { type: 'integer', default: 10_000, doc: 'time to send a request head; slower sockets are closed' },
    requestTimeoutMs: { type: 'integer', default: 30_000, doc: 'time to send a whole request' },
    wsConnectionsPerIp: { type: 'integer', default: 100, doc: 'WebSocket connections per client address' },
    wsConnections: { type: 'integer', default: 15_000, doc: 'WebSocket connections in all' },
    wsMessagesPerMinute: { type: 'integer', default: 600, doc: 'messages a WebSocket client may send per minute; more closes it (1008)' },
    wsSubscriptionsPerConnection: { type: 'integer', default: 1_000, doc: 'swaps one WebSocket connection may watch' },
    wsSubscriptions: { type: 'integer', default: 1_000_000, doc: 'swaps all WebSocket connections together may watch' },
  },
  database: {
    url: {
      type: 'string',
      default: '',
      doc: 'postgres://... for PostgreSQL; empty means SQLite at <dataDir>/ferry.sqlite',
    },
  },
  devnet: {
    enabled: {
      type: 'boolean',
      default: true,
      doc: 'run the embedded regtest devnet for every backend that is not configured',
    },
    bitcoinPort: { type: 'port', default: 18443, doc: 'port of the devnet bitcoin node JSON-RPC' },
    elementsPort: { type: 'port', default: 18884, doc: 'port of the devnet Elements (Liquid) node JSON-RPC' },
    evmPort: { type: 'port', default: 8545, doc: 'port of the devnet EVM node (anvil) JSON-RPC' },
    cln: {
      type: 'boolean',
      default: false,
      doc: "also run `cln`, a Core Lightning node (clnrest) with channels to alice and bob; on whenever Ferry's own node is the devnet's CLN node",
    },
    blockIntervalMs: {
      type: 'integer',
      default: 0,
      doc: 'mine a block on each devnet chain (bitcoin, Elements, EVM) every N ms; 0 mines only on demand (EVM: per transaction)',
    },
    fullRbf: {
      type: 'boolean',
      default: false,
      doc: "the devnet's Bitcoin and Elements nodes accept replacements (higher fee and fee rate than what they evict), as Core does for transactions signalling BIP125; off: every conflict is refused",
    },
  },
  bitcoin: {
    rpcUrl: { type: 'string', default: '', doc: 'Bitcoin Core JSON-RPC URL; empty uses the devnet' },
    rpcUser: { type: 'string', default: '', doc: 'JSON-RPC user' },
    rpcPassword: { type: 'string', default: '', doc: 'JSON-RPC password' },
    wallet: { type: 'string', default: '', doc: "wallet holding the operator's funds" },
    pollIntervalMs: { type: 'integer', default: 1000, doc: 'how often the chain watcher polls the node' },
  },
  liquid: {
    rpcUrl: { type: 'string', default: '', doc: 'Elements (Liquid) JSON-RPC URL; empty uses the devnet' },
    rpcUser: { type: 'string', default: '', doc: 'JSON-RPC user' },
    rpcPassword: { type: 'string', default: '', doc: 'JSON-RPC password' },
    wallet: { type: 'string', default: '', doc: "wallet holding the operator's L-BTC" },
    pollIntervalMs: { type: 'integer', default: 1000, doc: 'how often the chain watcher polls the node' },
  },
  evm: {
    rpcUrl: { type: 'string', default: '', doc: "EVM node's JSON-RPC URL (RSK, anvil, ...); empty uses the devnet's anvil" },
    chainId: { type: 'integer', default: 0, doc: "the chain id the node must report; 0: any (on the devnet's anvil, if set, it must be anvil's)" },
    etherSwap: { type: 'address', default: '', doc: "EtherSwap contract address; required with rpcUrl (the devnet's anvil: its own)" },
    erc20Swap: { type: 'address', default: '', doc: "ERC20Swap contract address; required with rpcUrl (the devnet's anvil: its own)" },
    tokens: { type: 'addresses', default: {}, doc: "ERC20 tokens served, SYMBOL = address; empty: none (the devnet's anvil: its test token)" },
    pollIntervalMs: { type: 'integer', default: 1000, doc: 'how often the contract event follower polls the node' },
    confirmations: { type: 'integer', default: 1, doc: 'blocks deep a contract event must be before it is delivered (1: in the tip)' },
  },
  swap: {
    mnemonicPath: {
      type: 'string',
      default: '',
      doc: "BIP39 mnemonic of the operator's swap keys; empty: <dataDir>/mnemonic, created on first start",
    },
    claimDelayMs: {
      type: 'integer',
      default: 60_000,
      doc: "how long a paid submarine swap waits for the client's cooperative claim before Ferry claims alone",
    },
    invoiceExpirySeconds: { type: 'integer', default: 3600, doc: 'expiry of reverse swap hold invoices' },
    paymentTimeoutSeconds: { type: 'integer', default: 60, doc: 'Lightning payment timeout of submarine swaps' },
    prepayMinerFee: {
      type: 'boolean',
      default: false,
      doc: 'v1 reverse swaps on UTXO chains ask for the lockup miner fee as a second invoice, paid before Ferry locks',
    },
    feeBumpAfterBlocks: {
      type: 'integer',
      default: 6,
      doc: "blocks one of Ferry's own lockups, claims or refunds may wait unconfirmed before it is replaced at a higher fee (0: never)",
    },
  },
  effects: {
    maxAttempts: {
      type: 'integer',
      default: 50,
      doc: 'failed attempts after which an effect (payment, lockup, claim, refund, invoice call) is given up: marked failed in the effect log and logged at error (ferry admin retry runs it again)',
    },
    retryMs: { type: 'integer', default: 1_000, doc: 'delay before the first retry of a failed effect, doubled each time' },
    retryMaxMs: { type: 'integer', default: 60_000, doc: 'longest delay between two attempts of an effect' },
  },
  /** The BTC/BTC pair, when no [[pairs]] list is given. */
  pair: pairFields,
  referral: {
    id: {
      type: 'string',
      default: '',
      doc: "the partner's referral id whose report the API key may read; empty: every referral id",
    },
    apiKey: { type: 'string', default: '', doc: 'API-KEY of GET /referrals/query; empty: referral reports are refused' },
    apiSecret: { type: 'string', default: '', doc: 'HMAC secret belonging to referral.apiKey' },
  },
  lightning: {
    backend: { type: 'lightningBackend', default: 'lnd', doc: 'the node Ferry drives: lnd (LND REST) or cln (Core Lightning: clnrest and the hold plugin)' },
    restUrl: { type: 'string', default: '', doc: "LND's REST URL (https://host:8080) or clnrest's (https://host:3010); empty uses the devnet" },
    rune: { type: 'string', default: '', doc: 'CLN: the rune clnrest checks (Rune header)' },
    macaroonPath: { type: 'string', default: '', doc: "LND's admin.macaroon" },
    macaroon: { type: 'string', default: '', doc: 'the macaroon as hex, instead of macaroonPath' },
    tlsCertPath: { type: 'string', default: '', doc: "LND's tls.cert (CLN: clnrest's ca.pem); empty for plain HTTP" },
    cln: {
      rpcSocket: {
        type: 'string',
        default: '',
        doc: "lightningd's JSON-RPC unix socket (<lightning-dir>/<network>/lightning-rpc), instead of clnrest's restUrl and rune",
      },
      /** The hold plugin's gRPC (mTLS); without it hold invoices go through its RPC methods, which drop memo, expiry and CLTV. */
      hold: {
        grpcUrl: { type: 'string', default: '', doc: "host:port of the hold plugin's gRPC (hold-grpc-host, hold-grpc-port); empty: its RPC methods over clnrest" },
        certDir: { type: 'string', default: '', doc: "the plugin's certificate directory (ca.pem, client.pem, client-key.pem; <lightning-dir>/<network>/hold/grpc)" },
        caCert: { type: 'string', default: '', doc: "the plugin's ca.pem, instead of certDir's" },
        clientCert: { type: 'string', default: '', doc: "the plugin's client.pem, instead of certDir's" },
        clientKey: { type: 'string', default: '', doc: "the plugin's client-key.pem, instead of certDir's" },
      },
    },
  },
};

export interface PairSettings {
  rate: number;
  feePercentage: number;
  feePercentageSwapIn: number;
  feePercentageChain: number;
  minimal: number;
  maximal: number;
  /** '' (unset): the network's default (swaps/confirmations.ts defaultMaximalZeroConf). */
  maximalZeroConf: number | '';
  /** As parseConfirmations reads it; '' for the chains' defaults. */
  confirmations: string;
  timeoutReverse: number;
  timeoutSwapMinimal: number;
  timeoutSwapMaximal: number;
}

export interface FerryConfig {
  network: 'regtest' | 'testnet' | 'signet' | 'mainnet';
  dataDir: string;
  api: { host: string; port: number; maxBodyBytes: number };
  log: { level: 'debug' | 'info' | 'warn' | 'error'; format: string };
  secrets: { passphraseFile: string; allowPlaintextMainnet: boolean };
  metrics: { enabled: boolean; host: string; port: number };
  page: { enabled: boolean; path: string };
  admin: { enabled: boolean; socketPath: string };
  alerts: {
    webhookUrl: string;
    webhookSecret: string;
    webhookAttempts: number;
    webhookBackoffMs: number;
    webhookTimeoutMs: number;
    unconfirmedAfterBlocks: number;
    checkIntervalMs: number;
  };
  webhooks: { secret: string; allowHttp: boolean; allowPrivate: boolean; attempts: number; backoffMs: number; timeoutMs: number };
  limits: {
    readBurst: number;
    readPerSecond: number;
    createBurst: number;
    createPerSecond: number;
    trustedProxies: string;
    maxConnections: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    wsConnectionsPerIp: number;
    wsConnections: number;
    wsMessagesPerMinute: number;
    wsSubscriptionsPerConnection: number;
    wsSubscriptions: number;
  };
  database: { url: string };
  devnet: { enabled: boolean; bitcoinPort: number; elementsPort: number; evmPort: number; cln: boolean; blockIntervalMs: number; fullRbf: boolean };
  bitcoin: { rpcUrl: string; rpcUser: string; rpcPassword: string; wallet: string; pollIntervalMs: number };
  liquid: { rpcUrl: string; rpcUser: string; rpcPassword: string; wallet: string; pollIntervalMs: number };
  evm: {
    rpcUrl: string;
    chainId: number;
    etherSwap: string;
    erc20Swap: string;
    tokens: Record<string, string>;
    pollIntervalMs: number;
    confirmations: number;
  };
  swap: { mnemonicPath: string; claimDelayMs: number; invoiceExpirySeconds: number; paymentTimeoutSeconds: number; prepayMinerFee: boolean; feeBumpAfterBlocks: number };
  effects: { maxAttempts: number; retryMs: number; retryMaxMs: number };
  pair: PairSettings;
  /** [[pairs]]: the pairs served; empty means the BTC/BTC pair of [pair]. */
  pairs: (PairSettings & { id: string })[];
  referral: { id: string; apiKey: string; apiSecret: string };
  lightning: {
    backend: 'lnd' | 'cln';
    restUrl: string;
    rune: string;
    macaroonPath: string;
    macaroon: string;
    tlsCertPath: string;
    cln: { rpcSocket: string; hold: { grpcUrl: string; certDir: string; caCert: string; clientCert: string; clientKey: string } };
  };
}

/** Environment variables that override a key; applied after the file. */
export const environment: Record<string, string> = {
  FERRY_NETWORK: 'network',
  FERRY_DATA_DIR: 'dataDir',
  FERRY_API_HOST: 'api.host',
  FERRY_API_PORT: 'api.port',
  FERRY_LOG_LEVEL: 'log.level',
  FERRY_LOG_FORMAT: 'log.format',
  FERRY_PASSPHRASE_FILE: 'secrets.passphraseFile',
  FERRY_ALLOW_PLAINTEXT_MAINNET: 'secrets.allowPlaintextMainnet',
  FERRY_METRICS_ENABLED: 'metrics.enabled',
  FERRY_PAGE_ENABLED: 'page.enabled',
  FERRY_PAGE_PATH: 'page.path',
  FERRY_ADMIN_SOCKET: 'admin.socketPath',
  FERRY_WEBHOOKS_SECRET: 'webhooks.secret',
  FERRY_ALERTS_WEBHOOK_URL: 'alerts.webhookUrl',
  FERRY_ALERTS_WEBHOOK_SECRET: 'alerts.webhookSecret',
  FERRY_WEBHOOKS_ALLOW_HTTP: 'webhooks.allowHttp',
  FERRY_WEBHOOKS_ALLOW_PRIVATE: 'webhooks.allowPrivate',
  FERRY_METRICS_HOST: 'metrics.host',
  FERRY_METRICS_PORT: 'metrics.port',
  FERRY_LIMITS_TRUSTED_PROXIES: 'limits.trustedProxies',
  FERRY_LIMITS_READ_BURST: 'limits.readBurst',
  FERRY_LIMITS_CREATE_BURST: 'limits.createBurst',
  FERRY_DATABASE_URL: 'database.url',
  FERRY_DEVNET_ENABLED: 'devnet.enabled',
  FERRY_DEVNET_BITCOIN_PORT: 'devnet.bitcoinPort',
  FERRY_DEVNET_ELEMENTS_PORT: 'devnet.elementsPort',
  FERRY_DEVNET_EVM_PORT: 'devnet.evmPort',
  FERRY_DEVNET_CLN: 'devnet.cln',
  FERRY_DEVNET_BLOCK_INTERVAL_MS: 'devnet.blockIntervalMs',
  FERRY_DEVNET_FULL_RBF: 'devnet.fullRbf',
  FERRY_BITCOIN_RPC_URL: 'bitcoin.rpcUrl',
  FERRY_BITCOIN_RPC_USER: 'bitcoin.rpcUser',
  FERRY_BITCOIN_RPC_PASSWORD: 'bitcoin.rpcPassword',
  FERRY_BITCOIN_WALLET: 'bitcoin.wallet',
  FERRY_LIQUID_RPC_URL: 'liquid.rpcUrl',
  FERRY_LIQUID_RPC_USER: 'liquid.rpcUser',
  FERRY_LIQUID_RPC_PASSWORD: 'liquid.rpcPassword',
  FERRY_LIQUID_WALLET: 'liquid.wallet',
  FERRY_SWAP_CLAIM_DELAY_MS: 'swap.claimDelayMs',
  FERRY_EVM_RPC_URL: 'evm.rpcUrl',
  FERRY_EVM_CHAIN_ID: 'evm.chainId',
  FERRY_EVM_ETHER_SWAP: 'evm.etherSwap',
  FERRY_EVM_ERC20_SWAP: 'evm.erc20Swap',
  FERRY_REFERRAL_ID: 'referral.id',
  FERRY_REFERRAL_API_KEY: 'referral.apiKey',
  FERRY_REFERRAL_API_SECRET: 'referral.apiSecret',
  FERRY_LIGHTNING_BACKEND: 'lightning.backend',
  FERRY_LND_REST_URL: 'lightning.restUrl',
  FERRY_CLN_RUNE: 'lightning.rune',
  FERRY_LND_MACAROON_PATH: 'lightning.macaroonPath',
  FERRY_LND_MACAROON: 'lightning.macaroon',
  FERRY_LND_TLS_CERT_PATH: 'lightning.tlsCertPath',
  FERRY_CLN_RPC_SOCKET: 'lightning.cln.rpcSocket',
  FERRY_CLN_HOLD_GRPC_URL: 'lightning.cln.hold.grpcUrl',
  FERRY_CLN_HOLD_CERT_DIR: 'lightning.cln.hold.certDir',
};
