/** The full capture (EKS, EC2, IAM, Kubernetes) for the worker and the report. */
import { createLiveCaptureDeps } from '../../shared/adapters/live.ts';
import type { CaptureDeps } from '../../shared/ports.ts';
import { clientOptions } from './env.ts';

export function createCaptureWiring(): CaptureDeps {
  return createLiveCaptureDeps({
    ...clientOptions(),
    retryMode: 'adaptive',
    kube: { requestTimeoutMs: 5_000, budgetMs: 20_000 },
  });
}
