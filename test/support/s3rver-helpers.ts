/** s3rver (a real S3 implementation) on an ephemeral 127.0.0.1 port with one bucket, and a client for it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { createS3Client } from '../../shared/adapters/s3-snapshot-store.ts';

export async function startS3rver(bucket: string) {
  const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const s3 = createS3Client('eu-west-1', {
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    maxAttempts: 1,
    callBudgetMs: 5000,
  });
  return {
    s3,
    async close() {
      s3.client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
