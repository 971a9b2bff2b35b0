/**
 * The sandbox's Kubernetes CA and server certificate (IP SAN 127.0.0.1, DNS localhost): keys with
 * node:crypto, certificates with node-forge (which has no EC keys, hence RSA).
 */
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

export interface SandboxTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

function keyPair(): { publicPem: string; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

let cached: SandboxTls | undefined;

/**
 * One CA for every sandbox of this user on this machine: two RSA keys and two forge signatures
 * cost about a second of CPU, paid once instead of by every process that starts a sandbox (each
 * test file, the demo). Kept in the temporary directory, readable by this user only; a file that
 * another user owns, that others can read, that does not parse, or whose server certificate
 * expires within a day or is not signed by its CA is ignored and replaced.
 */
export function sandboxTls(): SandboxTls {
  if (cached !== undefined) return cached;
  const file = join(tmpdir(), `eks-auth-sentinel-sandbox-tls-${uid()}.json`);
  cached = readStoredTls(file);
  if (cached === undefined) {
    cached = createTls();
    storeTls(file, cached);
  }
  return cached;
}

const DAY_MS = 24 * 3600_000;

/**
 * `process.getuid()`, not `os.userInfo().uid`: userInfo throws for a uid without a passwd entry
 * (a container run with an arbitrary `--user`). -1 where there is no uid (Windows).
 */
const uid = (): number => process.getuid?.() ?? -1;

export function readStoredTls(file: string): SandboxTls | undefined {
  try {
    const stat = statSync(file);
    if (stat.uid !== uid() || (stat.mode & 0o077) !== 0) return undefined;
    const tls = JSON.parse(readFileSync(file, 'utf8')) as Partial<SandboxTls>;
    if (typeof tls.caPem !== 'string' || typeof tls.certPem !== 'string' || typeof tls.keyPem !== 'string') {
      return undefined;
    }
    const ca = new X509Certificate(tls.caPem);
    const cert = new X509Certificate(tls.certPem);
    if (!cert.verify(ca.publicKey) || Date.parse(cert.validTo) - Date.now() < DAY_MS) return undefined;
    return { caPem: tls.caPem, certPem: tls.certPem, keyPem: tls.keyPem };
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a temporary file renamed), so a concurrent reader never sees half. */
export function storeTls(file: string, tls: SandboxTls): void {
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(partial, JSON.stringify(tls), { mode: 0o600, flag: 'wx' });
    renameSync(partial, file);
  } catch {
    // A read-only or full temporary directory: this process keeps its own CA in memory.
  }
}

export function createTls(): SandboxTls {
  const caKeys = keyPair();
  const caKey = forge.pki.privateKeyFromPem(caKeys.privatePem);
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(caKeys.publicPem);
  ca.serialNumber = serial();
  const now = new Date();
  ca.validity.notBefore = new Date(now.getTime() - 60_000);
  ca.validity.notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600_000);
  const caSubject = [{ name: 'commonName', value: 'eks-auth-sentinel-sandbox-ca' }];
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKey, forge.md.sha256.create());

  const serverKeys = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(serverKeys.publicPem);
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
        { type: 2, value: 'kubernetes.default.svc' },
      ],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return {
    caPem: forge.pki.certificateToPem(ca),
    certPem: forge.pki.certificateToPem(cert),
    keyPem: serverKeys.privatePem,
  };
}
