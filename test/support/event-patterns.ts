import { expect } from 'vitest';
import { HANDLED_IAM_EVENTS } from '../../shared/core/events/cloudtrail.ts';

/**
 * The EventBridge pattern for the IAM calls of workload identity, as both deploy templates (the
 * monitor's serverless.yml and the forwarding templates in infra/) must write it: IAM records,
 * exactly the handled calls, successful calls only.
 */
export function expectIamCallPattern(eventPattern: unknown): void {
  const pattern = eventPattern as {
    source: string[];
    detail: { eventSource: string[]; eventName: string[]; errorCode: unknown };
  };
  expect(pattern.source).toEqual(['aws.iam']);
  expect(pattern.detail.eventSource).toEqual(['iam.amazonaws.com']);
  expect([...pattern.detail.eventName].sort()).toEqual([...HANDLED_IAM_EVENTS].sort());
  expect(pattern.detail.errorCode).toEqual([{ exists: false }]);
}
