/** The full capture (EKS, EC2, IAM, Kubernetes) for the worker and the report. */
import { createLiveCaptureDeps, type LiveCaptureDeps } from '../../shared/adapters/live.ts';
import { clientOptions } from './env.ts';

export function createCaptureWiring(): LiveCaptureDeps {
  return createLiveCaptureDeps({
    ...clientOptions(),
    retryMode: 'adaptive',
    kube: { requestTimeoutMs: 5_000, budgetMs: 20_000 },
  });
}
