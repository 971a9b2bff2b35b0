/**
 * The sandbox's Kubernetes CA and server certificate (IP SAN 127.0.0.1, DNS localhost), made at
 * start: keys with node:crypto (fast), certificates with node-forge.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
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

/** One CA per process: key generation costs most of a second, and every sandbox can share it. */
export function sandboxTls(): SandboxTls {
  cached ??= createTls();
  return cached;
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
