/**
 * Stable fingerprints without node:crypto (the core stays pure and bundle-light): FNV-1a over
 * UTF-16 code units, two 32-bit lanes with different offsets → 16 hex characters. Collisions are
 * harmless beyond merging two alert lifecycles, and 64 bits make them vanishingly rare.
 */
export function fingerprintOf(parts: readonly string[]): string {
  const text = parts.join('\u0000');
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193 + 2) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}
