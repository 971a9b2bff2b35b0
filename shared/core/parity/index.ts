/**
 * The entry of `shared/core/parity/`: what code outside `shared/core` imports from this folder.
 */
export { compareClusters, podIdentityPlanOf } from './compare.ts';
