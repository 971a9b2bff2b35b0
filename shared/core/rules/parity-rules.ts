/**
 * Blue/green parity (`compare`, engine.ts `compareSnapshots`): what the source cluster grants that
 * the target does not. Apart from the monitor's rules (monitor-rules.ts), so that what the
 * monitor bundles does not carry them; the whole catalog is registry.ts.
 */
import { parityAccessDiffers } from './parity-access-differs.ts';
import { parityAccessMissing } from './parity-access-missing.ts';
import { parityWorkloadIdentityMissing } from './parity-workload-identity-missing.ts';
import type { Rule } from './types.ts';

export const PARITY_RULES: readonly Rule[] = [
  parityAccessMissing,
  parityAccessDiffers,
  parityWorkloadIdentityMissing,
];
