// The mTLS files a hold plugin client needs: the plugin writes ca.pem, client.pem and client-key.pem into its gRPC
// directory (<lightning-dir>/<network>/hold/grpc by default) at first start and accepts only clients whose
// certificate its CA signed. Either that directory or each file's path is configured.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HoldTlsPaths {
  certDir?: string; // holds ca.pem, client.pem, client-key.pem
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
}

export interface HoldTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The three files' paths: an explicit path wins over certDir's file of the plugin's name. */
export function holdTlsFiles(paths: HoldTlsPaths): { ca: string; cert: string; key: string } {
  const pick = (explicit: string | undefined, name: string, key: string): string => {
    if (explicit) return explicit;
    if (paths.certDir) return join(paths.certDir, name);
    throw new Error(`the hold plugin's gRPC needs ${key} or certDir`);
  };
  return { ca: pick(paths.caCert, 'ca.pem', 'caCert'), cert: pick(paths.clientCert, 'client.pem', 'clientCert'), key: pick(paths.clientKey, 'client-key.pem', 'clientKey') };
}

export function readHoldTls(paths: HoldTlsPaths): HoldTls {
  const files = holdTlsFiles(paths);
  const read = (path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read the hold plugin's ${path}: ${(err as Error).message}`);
    }
  };
  return { ca: read(files.ca), cert: read(files.cert), key: read(files.key) };
}
