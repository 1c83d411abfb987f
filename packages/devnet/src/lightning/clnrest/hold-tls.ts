// The mTLS files of a devnet CLN node's hold plugin gRPC, made as the plugin makes its own at first start: a CA
// ("Hold Root CA") that signs a server certificate (named hold, localhost, 127.0.0.1) and a client certificate, each
// as <name>.pem and <name>-key.pem in one directory (keys 0600). Later starts reuse them, so a client configured
// once stays trusted. Keys are RSA from node:crypto; node-forge writes the certificates.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

export interface HoldTlsDir {
  certDir: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
  serverCert: string;
  serverKey: string;
}

const NAMES = ['ca', 'server', 'client'] as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

export const holdTlsDir = (certDir: string): HoldTlsDir => ({
  certDir,
  caCert: join(certDir, 'ca.pem'),
  clientCert: join(certDir, 'client.pem'),
  clientKey: join(certDir, 'client-key.pem'),
  serverCert: join(certDir, 'server.pem'),
  serverKey: join(certDir, 'server-key.pem'),
});

interface Issued {
  certPem: string;
  keyPem: string;
}

function issue(commonName: string, issuer: Issued | undefined): Issued {
  const { privateKey: keyPem, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = '01' + randomBytes(15).toString('hex'); // positive
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 10 * YEAR_MS);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  const issuerCert = issuer && forge.pki.certificateFromPem(issuer.certPem);
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : cert.subject.attributes);
  cert.setExtensions(
    issuer === undefined
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
          {
            name: 'subjectAltName',
            altNames: [
              { type: 2, value: 'hold' },
              { type: 2, value: 'localhost' },
              { type: 7, ip: '127.0.0.1' },
            ],
          },
        ],
  );
  cert.sign(forge.pki.privateKeyFromPem(issuer?.keyPem ?? keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

/** The directory's certificates, made (all three anew) when any file is missing. */
export function ensureHoldTls(certDir: string): HoldTlsDir {
  const dir = holdTlsDir(certDir);
  const files = NAMES.flatMap((name) => [join(certDir, `${name}.pem`), join(certDir, `${name}-key.pem`)]);
  if (files.every((file) => existsSync(file))) return dir;
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const ca = issue('Hold Root CA', undefined);
  const made = { ca, server: issue('Hold gRPC server', ca), client: issue('Hold gRPC client', ca) };
  for (const name of NAMES) {
    writeFileSync(join(certDir, `${name}-key.pem`), made[name].keyPem, { mode: 0o600 });
    writeFileSync(join(certDir, `${name}.pem`), made[name].certPem);
  }
  return dir;
}

