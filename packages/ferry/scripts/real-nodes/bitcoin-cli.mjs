#!/usr/bin/env node
// A stand-in for Bitcoin Core's `bitcoin-cli`, written here because this machine has none and lightningd's bcli
// plugin talks to bitcoind only through it (`--bitcoin-cli=PATH`). It does what bcli relies on, as bitcoin-cli
// does: options `-rpcconnect= -rpcport= -rpcuser= -rpcpassword= -stdinrpcpass -stdin -rpcwallet= -rpcclienttimeout=
// -rpcwait -rpcwaittimeout=` (others, e.g. -regtest or -datadir, are accepted and ignored), then METHOD ARGS, more
// ARGS one per line on stdin with -stdin (after the password line of -stdinrpcpass: bcli passes the method's
// arguments that way); the arguments bitcoin-cli's
// conversion table reads as JSON (heights, counts, verbosity, fee rates) are sent as JSON, the rest as strings. A
// string result is printed raw, null as nothing, anything else as the node's JSON text unchanged — the number text
// included, which bcli parses strictly. An RPC error goes to stderr as `error code: N` / `error message:` / the
// message, and the exit status is |N|; a connection failure prints `error: ...` and exits 1.
import { request } from 'node:http';

// bitcoin-cli's vRPCConvertParams for the calls bcli and the tests make: (method, argument index) read as JSON.
const JSON_ARGS = {
  getblockhash: [0],
  getblock: [1],
  getblockheader: [1],
  gettxout: [1, 2],
  estimatesmartfee: [0],
  sendrawtransaction: [1, 2],
  getrawtransaction: [1],
  generatetoaddress: [0, 2],
  getrawmempool: [0, 1],
  testmempoolaccept: [0, 1],
  sendtoaddress: [1, 4, 5, 6, 8, 9],
  getbalance: [1, 2, 3],
  listunspent: [0, 1, 2, 3, 4],
};

function parseCommandLine(argv) {
  const options = {};
  let i = 0;
  for (; i < argv.length && argv[i].startsWith('-'); i++) {
    const [name, ...rest] = argv[i].replace(/^-+/, '').split('=');
    options[name] = rest.length > 0 ? rest.join('=') : true;
  }
  return { options, method: argv[i], args: argv.slice(i + 1) };
}

function readStdinLines() {
  return new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      text += chunk;
    });
    process.stdin.on('end', () => resolve(text.split(/\r?\n/)));
  });
}

/** The JSON text of the top-level `key` of an object's text, as written (no number is re-read). */
function memberText(text, key) {
  let depth = 0;
  let i = 0;
  const skipString = (at) => {
    let j = at + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(i);
      if (depth === 1 && JSON.parse(text.slice(i, end)) === key && /^\s*:/.test(text.slice(end))) {
        let start = text.indexOf(':', end) + 1;
        while (/\s/.test(text[start])) start++;
        let j = start;
        let inner = 0;
        for (; j < text.length; j++) {
          const d = text[j];
          if (d === '"') {
            j = skipString(j) - 1;
          } else if (d === '{' || d === '[') inner++;
          else if (d === '}' || d === ']') {
            if (inner === 0) break;
            inner--;
          } else if (d === ',' && inner === 0) break;
        }
        return text.slice(start, j).trim();
      }
      i = end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return undefined;
}

async function main() {
  const commandLine = parseCommandLine(process.argv.slice(2));
  const { options } = commandLine;
  const lines = options.stdinrpcpass || options.stdin ? await readStdinLines() : [];
  const password = options.stdinrpcpass ? (lines.shift() ?? '') : (options.rpcpassword ?? '');
  // -stdin: one argument per line until EOF (the method too, when the command line has none)
  const extra = options.stdin ? lines.filter((line, i) => line !== '' || i < lines.length - 1) : [];
  const words = [...(commandLine.method === undefined ? [] : [commandLine.method]), ...commandLine.args, ...extra];
  const [method, ...args] = words;
  if (method === undefined) {
    process.stderr.write('error: too few parameters (need at least command)\n');
    return 1;
  }
  const converted = JSON_ARGS[method] ?? [];
  const params = args.map((arg, index) => {
    if (!converted.includes(index)) return arg;
    try {
      return JSON.parse(arg);
    } catch {
      return arg;
    }
  });
  const host = options.rpcconnect ?? '127.0.0.1';
  const port = Number(options.rpcport ?? 18443);
  const path = typeof options.rpcwallet === 'string' ? `/wallet/${encodeURIComponent(options.rpcwallet)}` : '/';
  const body = JSON.stringify({ method, params, id: 1 });
  const auth = Buffer.from(`${options.rpcuser ?? ''}:${password}`).toString('base64');
  const timeoutMs = Number(options.rpcclienttimeout ?? 900) * 1000;

  const post = () =>
    new Promise((resolve, reject) => {
      const req = request(
        { host, port, path, method: 'POST', headers: { Authorization: `Basic ${auth}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout on transient error')));
      req.on('error', reject);
      req.end(body);
    });
  // -rpcwait: retry while the server cannot be reached, up to -rpcwaittimeout seconds (0: forever)
  const waitUntil = options.rpcwait ? Date.now() + Number(options.rpcwaittimeout ?? 0) * 1000 : 0;
  let answer;
  for (;;) {
    try {
      answer = await post();
      break;
    } catch (error) {
      if (options.rpcwait && (Number(options.rpcwaittimeout ?? 0) === 0 || Date.now() < waitUntil)) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      process.stderr.write(`error: Could not connect to the server ${host}:${port} (${error.message})\n`);
      return 1;
    }
  }
  if (answer.status === 401) {
    process.stderr.write('error: Authorization failed: Incorrect rpcuser or rpcpassword\n');
    return 1;
  }
  const errorText = memberText(answer.text, 'error');
  if (errorText === undefined) {
    process.stderr.write(`error: server returned HTTP status ${answer.status} without a JSON-RPC answer\n`);
    return 1;
  }
  if (errorText !== 'null') {
    const error = JSON.parse(errorText);
    process.stderr.write(`error code: ${error.code}\nerror message:\n${error.message}\n`);
    return Math.abs(error.code);
  }
  const resultText = memberText(answer.text, 'result') ?? 'null';
  if (resultText === 'null') return 0;
  process.stdout.write((resultText.startsWith('"') ? JSON.parse(resultText) : resultText) + '\n');
  return 0;
}

process.exitCode = await main();
