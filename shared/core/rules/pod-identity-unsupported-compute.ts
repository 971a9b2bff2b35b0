import type { FargateProfile } from '../model.ts';
import { globMatch } from '../workload-identity/iam-policy/glob.ts';
import {
  groupBy,
  okData,
  POD_IDENTITY_LIMITS,
  serviceAccountBlastRadius,
} from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

/** Fargate profile selectors take `*` and `?` in the namespace. */
function profilesSelecting(profiles: readonly FargateProfile[], namespace: string): FargateProfile[] {
  return profiles.filter((p) => p.selectors.some((sel) => globMatch(sel.namespace, namespace)));
}

export const podIdentityUnsupportedCompute: Rule = {
  id: 'pod-identity/unsupported-compute',
  severity: 'medium',
  kinds: ['state'],
  title: "A Pod Identity association's pods run where Pod Identity does not work (Fargate, Windows)",
  meaning: `${POD_IDENTITY_LIMITS} An association in a namespace a Fargate profile selects, or in a cluster that runs only Windows nodes, gives its pods nothing.`,
  fix: 'Use IRSA for pods on Fargate or Windows nodes, or run them on Linux EC2 nodes.',
  evaluate({ current: a }) {
    const s = a.snapshot;
    const associations = okData(s.podIdentityAssociations);
    if (!associations || associations.length === 0) return [];
    const out: FindingDraft[] = [];
    const profiles = okData(s.fargateProfiles);
    if (profiles) {
      for (const [namespace, group] of groupBy(associations, (x) => x.namespace)) {
        const selecting = profilesSelecting(profiles, namespace);
        if (selecting.length === 0) continue;
        const labelled = selecting.every((p) =>
          p.selectors.every(
            (sel) => !globMatch(sel.namespace, namespace) || Object.keys(sel.labels ?? {}).length > 0,
          ),
        );
        out.push({
          severity: 'medium',
          subject: `namespace/${namespace}`,
          fingerprintKey: 'fargate',
          title: `Namespace ${namespace} is selected by Fargate profile(s) ${selecting
            .map((p) => p.name)
            .sort()
            .join(', ')}: its Pod Identity associations give Fargate pods no credentials`,
          detail: `${POD_IDENTITY_LIMITS}${labelled ? ' The profile selects by labels too: only pods with those labels run on Fargate.' : ''}`,
          evidence: {
            namespace,
            fargateProfiles: selecting.map((p) => p.name).sort(),
            labelSelectorsOnly: labelled,
          },
          blastRadius: {
            ...serviceAccountBlastRadius(
              group.map((x) => ({ namespace: x.namespace, name: x.serviceAccount })),
            ),
            fargateProfiles: selecting.map((p) => p.name).sort(),
          },
          remediation: {
            summary:
              'Give these service accounts an IRSA role (eks.amazonaws.com/role-arn) for their Fargate pods, or move the pods to Linux EC2 nodes.',
          },
        });
      }
    }
    const compute = okData(s.compute);
    if (compute) {
      const ec2 = compute.filter((n) => n.kind !== 'fargate' && n.kind !== 'hybrid');
      const windows = ec2.filter((n) => n.os === 'windows');
      if (windows.length > 0 && windows.length === ec2.length) {
        out.push({
          severity: 'medium',
          subject: 'compute',
          fingerprintKey: 'windows',
          title: `Only Windows nodes run in ${a.cluster.name}: its ${associations.length} Pod Identity association(s) give no credentials`,
          detail: POD_IDENTITY_LIMITS,
          evidence: { windowsNodes: windows.length, linuxNodes: 0 },
          blastRadius: serviceAccountBlastRadius(
            associations.map((x) => ({ namespace: x.namespace, name: x.serviceAccount })),
          ),
          remediation: {
            summary: 'Run the pods on Linux EC2 nodes, or give their service accounts IRSA roles.',
          },
        });
      }
    }
    return out;
  },
};
