/**
 * The entry of `shared/core/access/`: what code outside `shared/core` imports from this folder.
 */
export {
  type Ec2Instance,
  type Ec2InstanceKind,
  type KubeNode,
  mergeCompute,
  parseClusterArn,
  roleAccount,
  roleArnFromName,
  rolePrincipals,
} from './compute.ts';
export { trustsEksCapabilities } from './eks-owned.ts';
export { type ConnectFailure, unreachableMessage } from './endpoint-access.ts';
export { principalKey } from './principal.ts';
