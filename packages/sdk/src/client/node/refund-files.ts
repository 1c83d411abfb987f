// Refund files on disk (Node): reading one by path (.json, .png, anything else as raw JSON) and writing both forms
// next to each other, owner-only since they hold a private key.
import { readFileSync } from 'node:fs';
import { parseRefundFileBytes, refundFileJson, refundFilePng, type RefundFile } from '../refund-file.ts';
import { writePrivateFile } from './file-store.ts';

export function readRefundFile(path: string): RefundFile {
  return parseRefundFileBytes(readFileSync(path), path);
}

/** Saves `<base>.json` and `<base>.png`; returns both paths. */
export function writeRefundFiles(file: RefundFile, base: string): { json: string; png: string } {
  const paths = { json: `${base}.json`, png: `${base}.png` };
  writePrivateFile(paths.json, refundFileJson(file));
  writePrivateFile(paths.png, refundFilePng(file));
  return paths;
}
