/** Plans built in a test: `validatePlan` over the resource changes given, as terraform show -json prints them. */
import { validatePlan } from '../../shared/core/plan/index.ts';

export function plan(changes: unknown[]) {
  const v = validatePlan({ format_version: '1.2', terraform_version: '1.9.8', resource_changes: changes });
  if (!v.ok) throw new Error(v.error);
  return v.plan;
}

/** One entry of `resource_changes`; its `name` is the last part of the address. */
export function rc(
  address: string,
  type: string,
  actions: string[],
  before: unknown,
  after: unknown,
  afterUnknown = {},
) {
  return {
    address,
    mode: 'managed',
    type,
    name: address.split('.').pop(),
    change: { actions, before, after, after_unknown: afterUnknown },
  };
}
