/**
 * The entry of `shared/core/workload-identity/`: what code outside `shared/core` imports from this folder.
 */
export { findOidcProvider } from './identity.ts';
export { ASSUME_ROLE_FOR_POD_IDENTITY } from './simulate-workload-identity.ts';
