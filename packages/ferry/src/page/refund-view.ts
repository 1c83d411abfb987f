/// <reference lib="dom" />
// The swap page's refund view: coins locked for a chain → Lightning swap that failed or expired come back from what
// the user kept — the refund file (JSON or its PNG QR code) or the rescue key — in any browser, with nothing of the
// swap in this one's storage. The swap is found through Ferry (the lockup it saw; the restore endpoint for a rescue
// key), checked by the SDK, and refunded to the address the user types: together with Ferry (key path) when Ferry
// signs, else alone through the script path once the timeout block is mined; until then the page says how long.
// Coins Ferry never saw (sent after the swap expired, say) are refunded too: the user gives the transaction that
// sent them (its id, read through Ferry, or its hex), and the page takes the output that pays the swap's script.
// RBTC swaps are found and refunded through the browser's Ethereum wallet instead (refund-wallet.ts).
import {
  ClientStore,
  FINAL_STATUSES,
  MemoryStorage,
  ServiceError,
  RefundTooEarlyError,
  RescueKey,
  SwapClient,
  destinationOf,
  lockupPaying,
  parseRefundFileBytes,
  refundFileOf,
  refundableFromFile,
  swapChain,
  type NetworkName,
  type RefundFile,
} from '@ferry/sdk/client/core.js';
import type { WalletLockup, WalletRefunds } from './refund-wallet.ts';

export interface RefundViewContext {
  client: SwapClient;
  network: NetworkName;
  /** Shows one of the page's views (and focuses its heading). */
  show(view: string): void;
  /** Why an address is refused, in the user's words, for a swap on `currency`. */
  whyNot(address: string, message: string, currency: string): string;
  chainName(currency: string): string;
  sat(n: number | bigint): string;
  /** Whether Ferry serves RBTC swaps (then the wallet can find them). */
  servesRbtc(): boolean;
  /** Connects the Ethereum wallet and finds its account's lockups (refund-wallet.ts, loaded on demand). */
  wallet(): Promise<WalletRefunds>;
}

/** A swap that may be refunded: its refund file (or, for RBTC, the wallet's lockup), and what Ferry says of it. */
interface Found {
  id: string;
  currency: string;
  file?: RefundFile;
  wallet?: WalletLockup;
  status?: string;
  lockupTxid?: string;
  /** The amount locked, as shown, when the lockup was read. */
  locked?: string;
  /** Ferry saw no lockup: the user gives the transaction, kept here (hex) once it is found to pay the swap. */
  unseen?: boolean;
  lockupHex?: string;
  /** Why it cannot be refunded from here, if so. */
  blocked?: string;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
};

const STATUS_WORDS: Record<string, string> = {
  'invoice.failedToPay': 'Ferry could not pay the invoice',
  'transaction.lockupFailed': 'the coins sent did not match the swap',
  'swap.expired': 'the swap expired',
  'swap.created': 'waiting for coins',
  'invoice.set': 'waiting for coins',
  'transaction.mempool': 'coins seen, not yet confirmed',
  'transaction.confirmed': 'coins confirmed',
  'invoice.pending': 'Ferry is paying the invoice',
  'invoice.paid': 'the invoice is paid',
  'transaction.claim.pending': 'the invoice is paid, Ferry is taking the coins',
  'transaction.claimed': 'the invoice is paid and Ferry took the coins',
};

/** A block count as a time, from the chain's block interval (Bitcoin ten minutes, Liquid one, Rootstock half a one). */
function aboutTime(blocks: number, currency: string): string {
  const minutes = Math.max(1, Math.round(blocks * ({ 'L-BTC': 1, RBTC: 0.5 }[currency] ?? 10)));
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `about ${hours} hours` : `about ${Math.round(hours / 24)} days`;
}

/** Wei as RBTC, as the page shows RBTC amounts. */
const rbtc = (wei: bigint): string => `${(Number(wei) / 1e18).toFixed(8)} RBTC`;

/** The rescue key's words in a text: a line of 12 to 24 lowercase words (the page's rescue key file has one). */
function wordsIn(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .find((line) => /^([a-z]+ ){11,23}[a-z]+$/.test(line));
}

export function initRefundView(context: RefundViewContext): void {
  const { client, network, sat, chainName } = context;
  let found: Found[] = [];
  let busy = false;
  /** The wallet's account and its refunds, once the RBTC swaps were asked for. */
  let walletRefunds: WalletRefunds | undefined;

  const findError = (text: string) => ($('refund-find-error').textContent = text);
  const result = (text: string, tone?: 'good' | 'bad') => {
    const box = $('refund-result');
    box.textContent = text;
    box.className = tone ?? '';
  };

  function open(): void {
    found = [];
    walletRefunds = undefined;
    $<HTMLInputElement>('refund-file').value = '';
    $<HTMLTextAreaElement>('refund-rescue').value = '';
    $<HTMLTextAreaElement>('refund-lockup').value = '';
    $('refund-lockup-error').textContent = '';
    $('refund-form').hidden = true;
    $('refund-wallet-row').hidden = !context.servesRbtc();
    findError('');
    result('');
    context.show('view-refund');
  }

  /** What Ferry says of the swap of a refund file: its status and lockup (the SDK checks the file first). */
  async function lookUp(file: RefundFile, lockupTxid?: string, status?: string): Promise<Found> {
    const refundable = refundableFromFile(file); // the file's key must be its swap's refund key
    const entry: Found = { id: file.id, currency: file.currency, file, lockupTxid, status };
    try {
      entry.status ??= (await client.status(file.id)).status;
    } catch (error) {
      if ((error as Error).name === 'ServiceUnreachableError') throw error; // said as such by find()
      entry.blocked = `Ferry does not know this swap (${(error as Error).message})`;
      return entry;
    }
    if (FINAL_STATUSES[file.type ?? 'submarine'].success.includes(entry.status)) {
      entry.blocked = 'it succeeded: there is nothing to refund';
      return entry;
    }
    let hex: string | undefined;
    try {
      hex =
        file.type === 'chain'
          ? (await client.api.chainTransactions(file.id)).userLock?.transaction.hex
          : (await client.api.submarineTransaction(file.id)).hex;
    } catch (error) {
      if (!(error instanceof ServiceError && error.status < 500)) throw error; // said as such by find()
    }
    const lockup = hex === undefined ? undefined : await lockupPaying(refundable, hex, network).catch(() => undefined);
    if (lockup === undefined) {
      // Coins may have gone to the address all the same (after the swap expired, say): the user gives the transaction.
      entry.unseen = true;
      entry.lockupTxid = undefined;
    } else {
      entry.lockupTxid = lockup.txid;
      entry.locked = sat(lockup.value);
    }
    return entry;
  }

  async function fromFile(input: File): Promise<Found[]> {
    const bytes = new Uint8Array(await input.arrayBuffer());
    let file: RefundFile;
    try {
      file = parseRefundFileBytes(bytes, input.name);
    } catch (error) {
      // The page's rescue key file works here too.
      const words = wordsIn(new TextDecoder().decode(bytes));
      if (words !== undefined) return fromRescueKey(words);
      throw new Error(`That file is not a refund file: ${(error as Error).message}.`);
    }
    return [await lookUp(file)];
  }

  /** Every submarine and chain swap of the rescue key, from Ferry's restore answer, checked by the SDK. */
  async function fromRescueKey(words: string): Promise<Found[]> {
    let rescue: RescueKey;
    try {
      rescue = RescueKey.fromMnemonic(words);
    } catch {
      throw new Error('Those words are not a rescue key: check each word and their order.');
    }
    // A store in memory: what a restore writes is for this view only, not this browser's own swaps.
    const scratch = new SwapClient({ serviceUrl: client.api.url, network, store: new ClientStore(new MemoryStorage()), rescueKey: rescue });
    const restored = await scratch.restore(rescue);
    const entries: Found[] = [];
    for (const record of restored.restored) {
      if (record.type !== 'submarine' && record.type !== 'chain') continue;
      entries.push(await lookUp(refundFileOf(record), record.lockup?.txid, record.status));
    }
    // A chain swap into RBTC is claimed by the wallet, not the key: the key still refunds its BTC lockup.
    for (const { file, lockupTxid, status } of restored.refundable) entries.push(await lookUp(file, lockupTxid, status));
    return entries;
  }

  function render(): void {
    const list = $('refund-swaps');
    list.replaceChildren(
      ...found.map((entry, at) => {
        const label = document.createElement('label');
        label.className = 'choice';
        const radio = document.createElement('input');
        radio.type = 'radio';
        radio.name = 'refund-swap';
        radio.value = String(at);
        radio.disabled = entry.blocked !== undefined;
        if (!entry.unseen) radio.dataset.seen = 'true';
        const status = entry.status === undefined ? '' : STATUS_WORDS[entry.status] ?? entry.status;
        const locked = entry.locked === undefined ? '' : ` · ${entry.locked} locked`;
        const unseen = entry.unseen && entry.lockupHex === undefined ? ' · Ferry saw no coins sent to it: give the transaction that sent them' : '';
        const what = entry.wallet !== undefined && entry.wallet.id === undefined ? `Lockup ${entry.wallet.lockup.txHash}` : `Swap ${entry.id}`;
        const nameless = entry.wallet !== undefined && entry.wallet.id === undefined ? 'Ferry names no swap of it' : '';
        label.append(radio, ` ${what} · ${chainName(entry.currency)}${locked} · ${entry.blocked ?? `${status}${nameless}${unseen}`}`);
        return label;
      }),
    );
    // A swap whose lockup Ferry saw first: one never funded asks for a transaction the user may not have.
    const first = list.querySelector<HTMLInputElement>('input[data-seen]:not(:disabled)') ?? list.querySelector<HTMLInputElement>('input:not(:disabled)');
    if (first) first.checked = true;
    $('refund-form').hidden = false;
    $<HTMLButtonElement>('refund-submit').disabled = first === null;
    chosenChanged();
  }

  const chosen = (): Found | undefined => {
    const radio = document.querySelector<HTMLInputElement>('input[name="refund-swap"]:checked');
    return radio ? found[Number(radio.value)] : undefined;
  };

  function chosenChanged(): void {
    const entry = chosen();
    $('refund-to-label').textContent = entry ? `Your ${chainName(entry.currency)} address for the refund (${network})` : 'Your address for the refund';
    // An RBTC refund goes to the account that locked: nothing to type.
    const toAccount = entry?.wallet !== undefined && walletRefunds !== undefined;
    for (const id of ['refund-to-label', 'refund-to', 'refund-to-error']) $(id).hidden = toAccount;
    $('refund-account').hidden = !toAccount;
    if (toAccount) $('refund-account').textContent = `The refund goes to your wallet's account ${walletRefunds!.account}, which locked the coins: your wallet sends it.`;
    $('refund-lockup-row').hidden = !(entry?.unseen === true && entry.lockupHex === undefined && entry.blocked === undefined);
  }

  /**
   * The transaction the user gave for a swap whose lockup Ferry never saw — an id (read through Ferry's chain
   * endpoint) or the raw hex — if it pays the swap's lockup script; else the reason beside the field, and nothing kept.
   */
  async function givenLockup(entry: Found, file: RefundFile): Promise<boolean> {
    const input = $<HTMLTextAreaElement>('refund-lockup');
    const error = $('refund-lockup-error');
    const refuse = (text: string) => {
      error.textContent = text;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return false;
    };
    const typed = input.value.replace(/\s+/g, '').toLowerCase();
    const chain = chainName(file.currency);
    if (typed === '') return refuse('Give the transaction that sent the coins: its id, or the whole transaction in hex.');
    let hex: string;
    if (/^[0-9a-f]{64}$/.test(typed)) {
      try {
        hex = (await client.api.chainTransaction(file.currency, typed)).hex;
      } catch (problem) {
        if (problem instanceof ServiceError && problem.status < 500) {
          return refuse(`Ferry's ${chain} node knows no transaction ${typed}: check the id, or paste the whole transaction in hex.`);
        }
        throw problem; // Ferry unreachable: said as such by refund()
      }
    } else if (/^[0-9a-f]+$/.test(typed) && typed.length % 2 === 0 && typed.length > 64) {
      hex = typed;
    } else {
      return refuse('That is neither a transaction id (64 hex characters) nor a whole transaction in hex.');
    }
    let lockup;
    try {
      lockup = await lockupPaying(refundableFromFile(file), hex, network);
    } catch (problem) {
      return refuse(`That is not a ${chain} transaction the page can read (${(problem as Error).message}).`);
    }
    if (lockup === undefined) return refuse(`That transaction does not pay swap ${file.id}: none of its outputs goes to the swap's lockup address. Nothing was refunded.`);
    input.removeAttribute('aria-invalid');
    error.textContent = '';
    entry.lockupHex = hex;
    entry.lockupTxid = lockup.txid;
    entry.locked = sat(lockup.value);
    return true;
  }

  async function find(): Promise<void> {
    if (busy) return;
    const picked = $<HTMLInputElement>('refund-file').files?.[0];
    const words = $<HTMLTextAreaElement>('refund-rescue').value.trim();
    if (picked === undefined && words === '') {
      findError('Choose your refund file, or type your rescue key.');
      return $('refund-file').focus();
    }
    busy = true;
    findError('');
    result('Looking for your swap…');
    $('refund-form').hidden = true;
    try {
      found = picked !== undefined ? await fromFile(picked) : await fromRescueKey(words.toLowerCase());
      walletRefunds = undefined;
      if (found.length === 0) {
        result('');
        findError('Ferry knows no swap of this rescue key: there is nothing to refund.');
        return;
      }
      const open = found.filter((entry) => entry.blocked === undefined).length;
      result(`Found ${found.length} swap${found.length === 1 ? '' : 's'}, ${open} to refund.`);
      render();
      if (open > 0) $('refund-to').focus();
    } catch (error) {
      result('');
      const e = error as Error;
      findError(e.name === 'ServiceUnreachableError' ? 'Ferry cannot be reached right now: check your connection and try again.' : e.message);
    } finally {
      busy = false;
    }
  }

  /** The address typed, if the chosen swap's chain and this network can pay it; else the reason beside the field. */
  function address(entry: Found): string | undefined {
    const input = $<HTMLInputElement>('refund-to');
    const typed = input.value.trim();
    const error = $('refund-to-error');
    if (typed === '') {
      error.textContent = 'Enter an address.';
      return undefined;
    }
    try {
      destinationOf(swapChain(entry.currency), typed, network);
    } catch (problem) {
      error.textContent = context.whyNot(typed, (problem as Error).message, entry.currency);
      input.setAttribute('aria-invalid', 'true');
      return undefined;
    }
    input.removeAttribute('aria-invalid');
    error.textContent = '';
    return typed;
  }

  async function refund(): Promise<void> {
    const entry = chosen();
    if (busy || entry === undefined) return;
    if (entry.wallet !== undefined) return refundWithWallet(entry, entry.wallet);
    const { file } = entry;
    if (file === undefined) return;
    const destination = address(entry);
    if (destination === undefined) return $('refund-to').focus();
    busy = true;
    $<HTMLButtonElement>('refund-submit').disabled = true;
    result('Refunding…');
    try {
      if (entry.unseen && entry.lockupHex === undefined && !(await givenLockup(entry, file))) return result('');
      const refunded = await client.refundFromFile(file, { destination, lockupTxid: entry.lockupTxid, lockupHex: entry.lockupHex });
      const how = refunded.path === 'key' ? 'together with Ferry' : 'alone, through the timeout script (Ferry was not needed)';
      $('refund-txid').textContent = refunded.txid;
      $('refund-tx-line').hidden = false;
      entry.blocked = `refunded in transaction ${refunded.txid}`;
      render(); // the next swap left to refund, if any, is chosen
      result(`Refunded ${sat(refunded.amount)} to ${destination} (network fee ${sat(refunded.fee)}), signed in this browser ${how}.`, 'good');
    } catch (error) {
      refused(error, entry.currency, 'Come back then with the same file or key, and press Refund again.');
    } finally {
      done();
    }
  }

  /** Why a refund did not go through, in words: before the timeout, how long until the user can refund alone. */
  function refused(error: unknown, currency: string, again: string): void {
    if (error instanceof RefundTooEarlyError) {
      const blocks = error.timeoutBlockHeight - error.height;
      result(
        `Ferry did not sign a refund now${error.cooperativeFailure ? ` (${error.cooperativeFailure})` : ''}. ` +
          `Without Ferry, the coins can be taken back once block ${error.timeoutBlockHeight} is mined: ` +
          `${blocks} more block${blocks === 1 ? '' : 's'} from now (${aboutTime(blocks, currency)}). ${again}`,
        'bad',
      );
    } else {
      const e = error as Error;
      result(`The refund did not go through: ${e.name === 'ServiceUnreachableError' ? 'Ferry cannot be reached right now' : e.message}.`, 'bad');
    }
  }

  function done(): void {
    busy = false;
    const next = chosen();
    $<HTMLButtonElement>('refund-submit').disabled = next === undefined || next.blocked !== undefined;
  }

  /** Connects the wallet and lists its account's lockups still in Ferry's swap contract. */
  async function findWithWallet(): Promise<void> {
    if (busy) return;
    busy = true;
    findError('');
    result('Asking your Ethereum wallet…');
    $('refund-form').hidden = true;
    try {
      const wallet = await context.wallet();
      walletRefunds = wallet;
      found = wallet.lockups.map((lockup) => ({
        id: lockup.id ?? lockup.lockup.txHash,
        currency: 'RBTC',
        wallet: lockup,
        status: lockup.status,
        locked: rbtc(lockup.lockup.amount),
        blocked: lockup.blocked,
      }));
      if (found.length === 0) {
        result('');
        findError(`Nothing of your wallet's account ${wallet.account} is locked in Ferry's swap contract: there is nothing to refund.`);
        return;
      }
      const open = found.filter((entry) => entry.blocked === undefined).length;
      const unnamed = wallet.restoreFailure === undefined ? '' : ` Ferry named none of their swaps (${wallet.restoreFailure}): each is refunded all the same.`;
      result(`Found ${found.length} RBTC lockup${found.length === 1 ? '' : 's'} of ${wallet.account}, ${open} to refund.${unnamed}`);
      render();
      if (open > 0) $('refund-submit').focus();
    } catch (error) {
      result('');
      const e = error as Error;
      findError(e.name === 'ServiceUnreachableError' ? 'Ferry cannot be reached right now: check your connection and try again.' : `RBTC swaps are found through your Ethereum wallet: ${e.message}`);
    } finally {
      busy = false;
    }
  }

  /** Refunds the account's lockup through the wallet: with Ferry's signature when given, else after the timelock. */
  async function refundWithWallet(entry: Found, lockup: WalletLockup): Promise<void> {
    if (walletRefunds === undefined) return;
    busy = true;
    $<HTMLButtonElement>('refund-submit').disabled = true;
    result('Confirm the refund in your wallet…');
    try {
      const refunded = await walletRefunds.refund(lockup);
      const how = refunded.path === 'cooperative' ? "with Ferry's signature, before the timelock" : 'alone, after the timelock (Ferry was not needed)';
      $('refund-txid').textContent = refunded.txHash;
      $('refund-tx-line').hidden = false;
      entry.blocked = `refunded in transaction ${refunded.txHash}`;
      render();
      result(`Refunded ${rbtc(refunded.lockup.amount)} to your wallet's account ${walletRefunds.account} (gas ${rbtc(refunded.fee)}), sent by your wallet ${how}.`, 'good');
    } catch (error) {
      refused(error, 'RBTC', 'Come back then, find your RBTC swaps with your wallet again, and press Refund.');
    } finally {
      done();
    }
  }

  for (const button of document.querySelectorAll('button.open-refund')) button.addEventListener('click', open);
  $('refund-find-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void find();
  });
  $('refund-wallet').addEventListener('click', () => void findWithWallet());
  $('refund-form').addEventListener('change', chosenChanged);
  $('refund-to').addEventListener('input', () => ($('refund-to-error').textContent = ''));
  $('refund-lockup').addEventListener('input', () => ($('refund-lockup-error').textContent = ''));
  $('refund-form').addEventListener('submit', (event) => {
    event.preventDefault();
    $('refund-tx-line').hidden = true;
    void refund();
  });
}
