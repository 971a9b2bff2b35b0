/**
 * The help text. Option lists are rendered from the option table (`options.ts`) that the parser
 * uses; the usage lines and prose around them are written here, and a test checks that every
 * option a usage line names is one the command takes, with the table's placeholder.
 */
import {
  type CommandName,
  DEFAULT_CLUSTER_CONCURRENCY,
  OPTIONS,
  type OptionName,
  type OptionRow,
  WHATIF_CHANGES,
} from './options.ts';

/** A line longer than this puts the option's default on a line of its own. */
const HELP_WIDTH = 100;

function label(name: OptionName): string {
  const row: OptionRow = OPTIONS[name];
  const short = row.short === undefined ? '' : `-${row.short}, `;
  return `${short}--${name}${row.value === undefined ? '' : ` ${row.value}`}`;
}

/** `  --name VALUE   description (default: X)`, one row per option, the descriptions aligned. */
export function optionLines(names: readonly OptionName[]): string {
  const width = Math.max(...names.map((n) => label(n).length)) + 3;
  const pad = ' '.repeat(2 + width);
  return names
    .map((name) => {
      const row: OptionRow = OPTIONS[name];
      const lines = typeof row.description === 'string' ? [row.description] : [...row.description];
      if (row.defaultText !== undefined) {
        const fallback = `(default: ${row.defaultText})`;
        const last = lines.length - 1;
        if (2 + width + `${lines[last]} ${fallback}`.length <= HELP_WIDTH) lines[last] += ` ${fallback}`;
        else lines.push(fallback);
      }
      const [first, ...rest] = lines;
      return [`  ${label(name).padEnd(width)}${first}`, ...rest.map((l) => `${pad}${l}`)].join('\n');
    })
    .join('\n');
}

const USAGE = `eks-auth-sentinel — drift monitor for Amazon EKS cluster authentication

Usage:
  eks-auth-sentinel assess   (--snapshot FILE | --cluster NAME --region R)
  eks-auth-sentinel diff     --before FILE --after FILE
  eks-auth-sentinel whatif   (--snapshot FILE | --cluster NAME --region R) (--delete-nodegroup NAME |
                             --delete-fargate-profile NAME | --delete-access-entry ARN | --delete-role ARN |
                             --auth-mode MODE | --event EVENT.json | --aws-auth FILE)
  eks-auth-sentinel whatif   --terraform-plan PLAN.json (--snapshot FILE | [--cluster A[,B]] --region R)
  eks-auth-sentinel compare  (--from FILE | --from-cluster NAME [--from-region R])
                             (--to FILE | --to-cluster NAME [--to-region R])
  eks-auth-sentinel snapshot (--cluster NAME --region R [--out FILE] | --all --region R[,R2]) [--store DIR]
  eks-auth-sentinel report   ([--cluster NAME] --region R[,R2] | --snapshot FILE) [--format html --out FILE]
  eks-auth-sentinel migrate  (--snapshot FILE | --cluster NAME --region R) [--format text|json|terraform|aws-cli]
  eks-auth-sentinel watch    --cluster NAME --region R [--duration SECONDS] [--interval SECONDS]
                             [--remediate off|dry-run|on] [--format text|json]
  eks-auth-sentinel rules    [--format text|markdown|json]
  eks-auth-sentinel demo    [--scenarios DIR]
  eks-auth-sentinel help [COMMAND]

Options:
${optionLines(['format', 'fail-on', 'max-chars', 'debug', 'help', 'version'])}

An input FILE (also PLAN.json, EVENT.json) may be - for standard input, one per command.

Live commands (snapshot, report, watch, --cluster) read AWS with your credentials (the SDK's default
chain: environment, profile, SSO, instance role) and endpoints (AWS_ENDPOINT_URL_EKS, _EC2, _IAM,
_STS), and the cluster's Kubernetes API with an EKS token made from them. --region defaults to
AWS_REGION, then AWS_DEFAULT_REGION.

Exit codes: 0 nothing at or above the threshold, 1 findings at or above it, 2 bad usage or input,
or a cluster or Region that could not be read at all (1 wins when both apply), 3 internal error.
Colour only on a terminal, and never with NO_COLOR set.
`;

const COMMAND_HELP: Record<CommandName, string> = {
  assess: `eks-auth-sentinel assess (--snapshot FILE | --cluster NAME --region R) [--format F] [--fail-on S]
                         [--max-chars N]

Evaluates every rule against one ClusterSnapshot (JSON, schemaVersion 1) and prints the findings.
With --cluster, captures the cluster live first (nothing is written).
Exits 1 when a finding is at or above --fail-on (default: critical); 2 when the cluster cannot be
read at all (the line names the operation and the missing permission).
`,
  diff: `eks-auth-sentinel diff --before FILE --after FILE [--format F] [--fail-on S] [--max-chars N]

Compares two snapshots of the same cluster: what was removed, what lost access, and why.
Exits 1 when a finding is at or above --fail-on (default: critical).
`,
  whatif: `eks-auth-sentinel whatif (--snapshot FILE | --cluster NAME --region R) CHANGE [--format F]
                         [--fail-on S] [--max-chars N]

Simulates one change with EKS's documented side effects and prints who would lose access.
CHANGE is exactly one of:
${optionLines(WHATIF_CHANGES)}
With --cluster, captures the cluster live first (nothing is written).
--terraform-plan simulates every auth-relevant change of the plan together, in the order EKS and
Kubernetes apply them, each finding naming its resource address; values known only after apply
are reported as unknown. Live, it reads the clusters the plan names (cluster_name) unless --cluster
says which. A plan that changes nothing auth-relevant prints so and exits 0.
Exits 1 when the change causes a finding at or above --fail-on (default: critical); 2 on input that
is not a plan or an aws-auth ConfigMap (with the JSON path or line), or on a plan that changes a
cluster it was not given.
`,
  compare: `eks-auth-sentinel compare (--from FILE | --from-cluster NAME [--from-region R])
                          (--to FILE | --to-cluster NAME [--to-region R]) [--format F] [--fail-on S]
                          [--max-chars N]

Blue/green parity: what the source cluster grants that the target does not — principals with
access (access entries, aws-auth) and service accounts' AWS roles (Pod Identity, IRSA) — with
the whole fix as one AWS CLI and one Terraform block, and the IRSA → Pod Identity plan that
leaves no cluster in any trust policy.
${optionLines(['from', 'from-cluster', 'from-region', 'to', 'to-cluster', 'to-region'])}
Exits 1 when a finding is at or above --fail-on (default: critical).
`,
  snapshot: `eks-auth-sentinel snapshot --cluster NAME --region R [--out FILE | --store DIR]
eks-auth-sentinel snapshot --all --region R[,R2] [--store DIR] [--concurrency N]

Captures clusters live into ClusterSnapshot JSON (EKS, EC2, IAM and the Kubernetes API, read-only).
${optionLines(['out', 'store', 'all'])}
Files are written whole or not at all (temporary file, then rename). A source that cannot be read
is recorded as such in the snapshot. Prints one line per file written (--format json: the files
written and the clusters that could not be read).
Exits 0 when every cluster was written, 2 when a cluster or Region could not be read at all (one
line each on stderr: which operation failed and which permission is missing), the others written.
`,
  report: `eks-auth-sentinel report [--cluster NAME] --region R[,R2] [--format F] [--fail-on S] [--max-chars N]
                         [--concurrency N] [--out FILE]
eks-auth-sentinel report --snapshot FILE [--format F] [--out FILE]

Live report: lists the clusters of the Regions (or takes the one named), captures each (N at a
time, default ${DEFAULT_CLUSTER_CONCURRENCY}), assesses it and simulates deleting each of its node groups and Fargate
profiles. On a terminal, stderr shows a progress line per cluster; stdout holds only the report.
A cluster that cannot be read does not stop the others: it is listed in the report and on stderr
(one line: the operation that failed and the permission it needs).
Exit codes: 1 when a finding (assessment or what-if) is at or above --fail-on (default: critical);
otherwise 2 when a cluster or Region could not be read at all; otherwise 0. With --fail-on none,
only an unreadable cluster makes it non-zero.
--format html writes one self-contained page (no script, no network, no external asset): the
findings by severity, each in full, and a picture of who depends on what — principal → how it is
authorized (access entry, aws-auth line, mapAccounts, nothing) → the compute that uses it — with the
paths at risk marked. --format is text|markdown|json|html; --out FILE writes the report there.
With --snapshot FILE the report is made from that snapshot, nothing is read live.
`,
  migrate: `eks-auth-sentinel migrate (--snapshot FILE | --cluster NAME --region R) [--format text|json|terraform|aws-cli]
                          [--fail-on S]

The plan from aws-auth to access entries, from the mappings the authenticator really uses (the last
duplicate wins, invalid entries are dropped) and the roles compute depends on: node roles become
EC2_LINUX or EC2_WINDOWS entries, Fargate pod execution roles FARGATE_LINUX, hybrid node roles
HYBRID_LINUX, system:masters a STANDARD entry with AmazonEKSClusterAdminPolicy, other groups STANDARD
entries with kubernetesGroups; each role by its real ARN (IAM path included, from the snapshot's IAM
roles). Blockers say what cannot move and what to do: mapAccounts, groups EKS refuses (system:…),
username templates access entries do not support, principals whose access entry means otherwise.
Steps: mode API_AND_CONFIG_MAP, create the entries, verify (whatif --auth-mode API), only then API.
--format json prints {cluster, steps, accessEntries, blockers}; terraform a file terraform validate
accepts: the aws_eks_access_entry and aws_eks_access_policy_association resources, the terraform-aws-eks
access_entries input commented out below them; aws-cli a script. Nothing is changed. Exits 1 when the plan has blockers, else 0: a blocker counts as critical
(the switch would take that access for good), so only --fail-on none changes the exit code.
`,
  watch: `eks-auth-sentinel watch --cluster NAME --region R [--duration SECONDS] [--interval SECONDS]
                        [--remediate off|dry-run|on] [--format text|json]

Follows one cluster during a migration or a risky change, with the monitor's own evaluation. It
reads the cluster once (as snapshot does) and prints "ready" with every finding; then it follows
aws-auth with a Kubernetes watch (each write is assessed at once, across server closes, token
refreshes and 410 Gone) and reads the EKS side every --interval: a node group or Fargate profile
that turns DELETING is predicted as its CloudTrail record would be, and a change of access
entries, node groups, Fargate profiles or the authentication mode is assessed. Each event is one
line, written at once: what changed, who wrote it (aws-auth's field manager) and the findings the
monitor would alert (opened, escalated, confirmed, resolved).
${optionLines(['duration', 'interval', 'remediate'])}
--format json prints NDJSON, one object per line: {"type":"ready","findings":[…]}, then
{"type":"change"|"prediction","source":"aws-auth"|"access-entries"|"nodegroups"|"fargate-profiles"|
"auth-mode","actor":{…},"findings":[{"notice","ruleId","severity","subject","title",…}],"actions":[]},
and {"type":"end"} last. --remediate on creates the node access entry a DELETING node group would
take away (API modes) and restores aws-auth entries running compute needs, with your credentials;
dry-run says what it would do ("actions" with "result":"would-do") and writes nothing.
Exits 0 at --duration or on SIGINT/SIGTERM; 2 when the cluster (or its aws-auth) cannot be read
at the start, or when the aws-auth watch could not go on (the "unreadable" line says why).
`,
  rules: `eks-auth-sentinel rules [--format text|markdown|json]

Lists the rule catalog; --format markdown prints the README's table. Always exits 0: it reports
no findings.
`,
  demo: `eks-auth-sentinel demo [--scenarios DIR] [--format F] [--fail-on S] [--max-chars N]

Assesses every scenario (DIR/*.json, default: the package's scenarios/) and, for scenarios whose
name starts with "a-", simulates deleting each node group. Exits 0 unless --fail-on is given.
`,
};

export function helpText(command?: CommandName): string {
  return command === undefined ? USAGE : COMMAND_HELP[command];
}
