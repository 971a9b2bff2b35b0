/**
 * RBAC manifests (Role/ClusterRole + RoleBinding/ClusterRoleBinding, as `kubectl apply` reads them)
 * turned into the sandbox's grants (`cluster.rbac`): a test applies the same YAML a team would.
 * Only core-group rules (`apiGroups: [""]`) grant anything here, as only core resources are served.
 */
import { parseAllDocuments } from 'yaml';
import type { SandboxRbacGrant } from './types.ts';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface Manifest {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind?: string; name?: string };
  subjects?: Array<{ kind?: string; name?: string }>;
}

/** The grants the bindings in `yamlText` (one or more documents) give through the roles it defines. */
export function rbacFromManifests(yamlText: string): SandboxRbacGrant[] {
  const docs = parseAllDocuments(yamlText)
    .map((d) => d.toJSON() as Manifest | null)
    .filter((d): d is Manifest => d !== null && typeof d === 'object');
  const roles = new Map<string, Manifest>();
  for (const d of docs) {
    if (d.kind === 'Role' || d.kind === 'ClusterRole') roles.set(`${d.kind}/${d.metadata?.name ?? ''}`, d);
  }
  const grants: SandboxRbacGrant[] = [];
  for (const b of docs) {
    if (b.kind !== 'RoleBinding' && b.kind !== 'ClusterRoleBinding') continue;
    const role = roles.get(`${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`);
    if (!role) continue;
    const subjects = (b.subjects ?? []).flatMap((s): SandboxRbacGrant['subjects'] =>
      (s.kind === 'Group' || s.kind === 'User') && s.name ? [{ kind: s.kind, name: s.name }] : [],
    );
    // A RoleBinding limits even a ClusterRole to its own namespace.
    const namespace = b.kind === 'RoleBinding' ? (b.metadata?.namespace ?? 'default') : undefined;
    for (const rule of role.rules ?? []) {
      if (!(rule.apiGroups ?? []).some((g) => g === '' || g === '*')) continue;
      grants.push({
        name: b.metadata?.name ?? 'binding',
        subjects,
        ...(namespace === undefined ? {} : { namespace }),
        verbs: [...(rule.verbs ?? [])],
        resources: [...(rule.resources ?? [])],
        ...(rule.resourceNames && rule.resourceNames.length > 0
          ? { resourceNames: [...rule.resourceNames] }
          : {}),
      });
    }
  }
  return grants;
}
