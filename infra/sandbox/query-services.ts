/**
 * The query-protocol services (form-encoded POST or GET, XML replies): EC2 DescribeInstances,
 * IAM GetInstanceProfile/GetRole (and the write calls of iam-writes.ts), STS GetCallerIdentity, SNS Publish (Slack: slack-service.ts).
 * Every AWS request must carry a valid SigV4 signature of a sandbox principal.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { simulateAction } from './iam-policy-eval.ts';
import { IAM_WRITE_HANDLERS } from './iam-writes.ts';
import { decodeToken, encodeToken, parseRoleArn, xmlEscape } from './ids.ts';
import { type Incoming, type Principal, type Runtime, readIncoming, requestId, send } from './runtime.ts';
import { QueryError } from './service-errors.ts';
import { parseQuery, type QueryParams, verifyRequest } from './sigv4.ts';
import type { SandboxNode, SnsRecord } from './types.ts';
import { type ClusterState, instanceProfileOfNode } from './world.ts';

type QueryService = 'ec2' | 'iam' | 'sts' | 'sns';

const NAMESPACES: Record<QueryService, string> = {
  ec2: 'http://ec2.amazonaws.com/doc/2016-11-15/',
  iam: 'https://iam.amazonaws.com/doc/2010-05-08/',
  sts: 'https://sts.amazonaws.com/doc/2011-06-15/',
  sns: 'http://sns.amazonaws.com/doc/2010-03-31/',
};

function errorXml(service: QueryService, code: string, message: string, reqId: string): string {
  if (service === 'ec2') {
    return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message></Error></Errors><RequestID>${reqId}</RequestID></Response>`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${NAMESPACES[service]}"><Error><Type>Sender</Type><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>${reqId}</RequestId></ErrorResponse>`;
}

/** Parameters of a query request: the URL query merged with a form-encoded body. */
function queryParams(incoming: Incoming): QueryParams {
  const params: QueryParams = new Map(incoming.query);
  const type = incoming.headers['content-type'] ?? '';
  if (incoming.body.length > 0 && (type === '' || type.includes('x-www-form-urlencoded'))) {
    for (const [k, v] of parseQuery(incoming.body.toString('utf8'))) {
      params.set(k, [...(params.get(k) ?? []), ...v]);
    }
  }
  return params;
}

function one(params: QueryParams, key: string): string | undefined {
  return params.get(key)?.[0];
}

export interface QueryHandlerContext {
  runtime: Runtime;
  principal: Principal;
  region: string;
  params: QueryParams;
  reqId: string;
  /** The caller's User-Agent and address, for the CloudTrail records of write calls. */
  userAgent: string;
  sourceIPAddress: string;
}

type Handler = (ctx: QueryHandlerContext) => {
  body: string;
  cluster?: string;
  json?: Record<string, unknown>;
};

export function createQueryServer(runtime: Runtime, service: QueryService): Server {
  const handlers: Record<string, Handler> =
    service === 'ec2'
      ? { DescribeInstances: describeInstances }
      : service === 'iam'
        ? {
            GetInstanceProfile: getInstanceProfile,
            GetRole: getRole,
            ListOpenIDConnectProviders: listOpenIdConnectProviders,
            GetOpenIDConnectProvider: getOpenIdConnectProvider,
            SimulatePrincipalPolicy: simulatePrincipalPolicy,
            ...IAM_WRITE_HANDLERS,
          }
        : service === 'sts'
          ? { GetCallerIdentity: getCallerIdentity }
          : { Publish: publish };
  return createServer((req, res) => {
    handleQuery(runtime, service, handlers, req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, 500, 'text/xml', errorXml(service, 'InternalFailure', String(err), requestId()));
    });
  });
}

async function handleQuery(
  runtime: Runtime,
  service: QueryService,
  handlers: Record<string, Handler>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const incoming = await readIncoming(req);
  // SNS also speaks AWS JSON 1.0 (X-Amz-Target: SNS_20100331.<Action>): map it onto query parameters.
  const json = jsonRequest(service, incoming);
  const params = json?.params ?? queryParams(incoming);
  const action = json?.action ?? one(params, 'Action') ?? 'Unknown';
  const reqId = requestId();
  const reply = (status: number, body: string, cluster?: string): void => {
    runtime.record(service, action, cluster, status);
    send(res, status, json ? 'application/x-amz-json-1.0' : 'text/xml', body, { 'x-amzn-requestid': reqId });
  };
  const fail = (e: QueryError): void => {
    if (json) {
      runtime.record(service, action, undefined, e.status);
      send(
        res,
        e.status,
        'application/x-amz-json-1.0',
        JSON.stringify({ __type: e.code, message: e.message }),
        {
          'x-amzn-requestid': reqId,
          'x-amzn-query-error': `${e.code};Sender`,
        },
      );
      return;
    }
    reply(e.status, errorXml(service, e.code, e.message, reqId));
  };
  await runtime.delay();
  const verified = verifyRequest(incoming, runtime.lookupSecret, Date.now());
  if (!verified.ok) {
    const code =
      verified.code === 'unknown-key'
        ? service === 'ec2'
          ? 'AuthFailure'
          : 'InvalidClientTokenId'
        : verified.code === 'missing'
          ? 'MissingAuthenticationToken'
          : verified.code === 'expired'
            ? service === 'ec2'
              ? 'RequestExpired'
              : 'ExpiredToken'
            : service === 'ec2'
              ? 'AuthFailure'
              : 'SignatureDoesNotMatch';
    fail(new QueryError(verified.code === 'missing' ? 401 : 403, code, verified.message));
    return;
  }
  const handler = handlers[action];
  if (!handler) {
    fail(new QueryError(400, 'InvalidAction', `The action ${action} is not valid for this web service.`));
    return;
  }
  const fault = runtime.takeFault(service, action, undefined);
  if (fault?.hang) return runtime.record(service, action, undefined, 0);
  if (fault) {
    fail(new QueryError(fault.status, fault.code ?? 'InternalFailure', fault.message ?? 'Injected fault'));
    return;
  }
  try {
    const principal = runtime.principals.get(verified.scope.accessKeyId) as Principal;
    const out = handler({
      runtime,
      principal,
      region: verified.scope.region,
      params,
      reqId,
      userAgent: incoming.headers['user-agent'] ?? 'aws-sdk-js',
      sourceIPAddress: req.socket.remoteAddress ?? '127.0.0.1',
    });
    reply(200, json ? JSON.stringify(out.json ?? {}) : out.body, out.cluster);
  } catch (err) {
    if (err instanceof QueryError) fail(err);
    else throw err;
  }
}

function jsonRequest(
  service: QueryService,
  incoming: Incoming,
): { action: string; params: QueryParams } | undefined {
  if (service !== 'sns') return undefined;
  const target = incoming.headers['x-amz-target'];
  if (!target || !(incoming.headers['content-type'] ?? '').includes('json')) return undefined;
  const action = target.split('.').pop() ?? 'Unknown';
  const params: QueryParams = new Map([['Action', [action]]]);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(incoming.body.toString('utf8') || '{}') as Record<string, unknown>;
  } catch {
    body = {};
  }
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') params.set(k, [v]);
  }
  const attrs = body.MessageAttributes;
  if (typeof attrs === 'object' && attrs !== null) {
    Object.entries(attrs as Record<string, { DataType?: string; StringValue?: string }>).forEach(
      ([name, value], i) => {
        params.set(`MessageAttributes.entry.${i + 1}.Name`, [name]);
        if (value.DataType !== undefined)
          params.set(`MessageAttributes.entry.${i + 1}.Value.DataType`, [value.DataType]);
        if (value.StringValue !== undefined) {
          params.set(`MessageAttributes.entry.${i + 1}.Value.StringValue`, [value.StringValue]);
        }
      },
    );
  }
  return { action, params };
}

// -----------------------------------------------------------------------------------------------
// EC2

/** EC2 tags of a node's instance, per kind (docs/eks-auth-semantics.md#karpenter-and-node-attribution). */
export function instanceTags(cluster: ClusterState, node: SandboxNode): Array<[string, string]> {
  const tags: Array<[string, string]> = [[`kubernetes.io/cluster/${cluster.name}`, 'owned']];
  if (node.kind === 'managed') {
    tags.push(['eks:cluster-name', cluster.name]);
    if (node.nodegroup) {
      tags.push(['eks:nodegroup-name', node.nodegroup]);
      tags.push(['aws:autoscaling:groupName', `eks-${node.nodegroup}-${cluster.name}`]);
    }
  } else if (node.kind === 'karpenter') {
    tags.push(['eks:eks-cluster-name', cluster.name]);
    if (node.nodePool) tags.push(['karpenter.sh/nodepool', node.nodePool]);
    if (node.nodeClass) tags.push(['karpenter.k8s.aws/ec2nodeclass', node.nodeClass]);
    tags.push(['karpenter.sh/nodeclaim', `${node.nodePool ?? 'default'}-${node.id.slice(-5)}`]);
  } else if (node.kind === 'auto') {
    tags.push(['eks:eks-cluster-name', cluster.name]);
  }
  tags.push(['Name', node.nodeName ?? node.id]);
  return tags;
}

function glob(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return re.test(value);
}

interface Filter {
  name: string;
  values: string[];
}

function parseIndexed(params: QueryParams, prefix: string): string[] {
  const out: Array<[number, string]> = [];
  for (const [k, v] of params) {
    const m = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)$`).exec(k);
    if (m && v[0] !== undefined) out.push([Number(m[1]), v[0]]);
  }
  return out.sort((a, b) => a[0] - b[0]).map((x) => x[1]);
}

function parseFilters(params: QueryParams): Filter[] {
  const filters: Filter[] = [];
  for (const [k, v] of params) {
    const m = /^Filter\.(\d+)\.Name$/.exec(k);
    if (!m || v[0] === undefined) continue;
    filters.push({ name: v[0], values: parseIndexed(params, `Filter.${m[1]}.Value`) });
  }
  return filters;
}

const STATE_CODES: Record<SandboxNode['instanceState'], number> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
};

function matchesFilter(
  f: Filter,
  node: SandboxNode,
  tags: Array<[string, string]>,
  profileArn: string,
): boolean {
  const any = (value: string | undefined): boolean =>
    value !== undefined && f.values.some((p) => glob(p, value));
  if (f.name.startsWith('tag:')) {
    const key = f.name.slice(4);
    return tags.some(([k, v]) => k === key && any(v));
  }
  switch (f.name) {
    case 'tag-key':
      return tags.some(([k]) => any(k));
    case 'tag-value':
      return tags.some(([, v]) => any(v));
    case 'instance-state-name':
      return any(node.instanceState);
    case 'instance-state-code':
      return any(String(STATE_CODES[node.instanceState]));
    case 'instance-id':
      return any(node.id);
    case 'private-dns-name':
      return any(node.nodeName);
    case 'iam-instance-profile.arn':
      return any(profileArn);
    case 'availability-zone':
      return any(node.availabilityZone);
    default:
      throw new QueryError(400, 'InvalidParameterValue', `The filter '${f.name}' is invalid`);
  }
}

/** The selection of each paginated DescribeInstances listing, by region + filters + IDs. */
const selections = new WeakMap<Runtime, Map<string, Array<{ cluster: ClusterState; node: SandboxNode }>>>();

/**
 * What a real DescribeInstances item carries besides the fields the monitor reads (network
 * interface, volumes, options, launch-template tags …): about 5 KiB of XML, ≈ 12 KiB once the
 * SDK has parsed it — the weight that makes memory scale with the instance count.
 */
function fullInstanceDetail(node: SandboxNode, accountId: string): { fields: string; tags: string } {
  const n = node.id.slice(2);
  const eni = `eni-${n}`;
  const sg = (i: number) =>
    `<item><groupId>sg-0${i}${n.slice(0, 15)}</groupId><groupName>eks-cluster-sg-${i}-${n.slice(0, 8)}</groupName></item>`;
  const volume = (dev: string, i: number) =>
    `<item><deviceName>${dev}</deviceName><ebs><volumeId>vol-0${i}${n.slice(0, 16)}</volumeId><status>attached</status><attachTime>${node.launchTime}</attachTime><deleteOnTermination>true</deleteOnTermination></ebs></item>`;
  const tags = [
    ['aws:ec2launchtemplate:id', `lt-0${n.slice(0, 16)}`],
    ['aws:ec2launchtemplate:version', '7'],
    ['aws:ec2:fleet-id', `fleet-${n.slice(0, 8)}-1111-2222-3333-444455556666`],
    ['k8s.io/cluster-autoscaler/enabled', 'true'],
    ['team', 'platform-engineering'],
    ['cost-center', 'cc-000123456'],
    ['environment', 'production'],
    ['owner', 'platform-team@example.com'],
  ]
    .map(([k, v]) => `<item><key>${k}</key><value>${v}</value></item>`)
    .join('');
  const privateIps = Array.from(
    { length: 6 },
    (_, i) =>
      `<item><privateIpAddress>10.${i}.${node.privateIp.split('.').slice(2).join('.')}</privateIpAddress><privateDnsName>ip-10-${i}-x.compute.internal</privateDnsName><primary>${i === 0}</primary></item>`,
  ).join('');
  const fields = `<keyName>eks-nodes-${n.slice(0, 6)}</keyName><kernelId/><ramdiskId/><productCodes/><monitoring><state>disabled</state></monitoring><subnetId>subnet-0${n.slice(0, 16)}</subnetId><vpcId>vpc-0${n.slice(0, 16)}</vpcId><sourceDestCheck>true</sourceDestCheck><groupSet>${sg(1)}${sg(2)}</groupSet><stateReason><code>pending</code><message>pending</message></stateReason><rootDeviceType>ebs</rootDeviceType><rootDeviceName>/dev/xvda</rootDeviceName><blockDeviceMapping>${volume('/dev/xvda', 1)}${volume('/dev/xvdb', 2)}</blockDeviceMapping><virtualizationType>hvm</virtualizationType><clientToken>fleet-${n}-0</clientToken><hypervisor>xen</hypervisor><networkInterfaceSet><item><networkInterfaceId>${eni}</networkInterfaceId><subnetId>subnet-0${n.slice(0, 16)}</subnetId><vpcId>vpc-0${n.slice(0, 16)}</vpcId><description>aws-K8S-${node.id}</description><ownerId>${accountId}</ownerId><status>in-use</status><macAddress>0a:1b:2c:3d:4e:5f</macAddress><privateIpAddress>${node.privateIp}</privateIpAddress><sourceDestCheck>true</sourceDestCheck><groupSet>${sg(1)}${sg(2)}</groupSet><attachment><attachmentId>eni-attach-${n}</attachmentId><deviceIndex>0</deviceIndex><status>attached</status><attachTime>${node.launchTime}</attachTime><deleteOnTermination>true</deleteOnTermination><networkCardIndex>0</networkCardIndex></attachment><privateIpAddressesSet>${privateIps}</privateIpAddressesSet><ipv6AddressesSet/><interfaceType>interface</interfaceType></item></networkInterfaceSet><ebsOptimized>true</ebsOptimized><enaSupport>true</enaSupport><cpuOptions><coreCount>2</coreCount><threadsPerCore>2</threadsPerCore></cpuOptions><capacityReservationSpecification><capacityReservationPreference>open</capacityReservationPreference></capacityReservationSpecification><hibernationOptions><configured>false</configured></hibernationOptions><metadataOptions><state>applied</state><httpTokens>required</httpTokens><httpPutResponseHopLimit>2</httpPutResponseHopLimit><httpEndpoint>enabled</httpEndpoint><httpProtocolIpv6>disabled</httpProtocolIpv6><instanceMetadataTags>disabled</instanceMetadataTags></metadataOptions><enclaveOptions><enabled>false</enabled></enclaveOptions><bootMode>uefi-preferred</bootMode><usageOperation>RunInstances</usageOperation><usageOperationUpdateTime>${node.launchTime}</usageOperationUpdateTime><privateDnsNameOptions><hostnameType>ip-name</hostnameType><enableResourceNameDnsARecord>false</enableResourceNameDnsARecord><enableResourceNameDnsAAAARecord>false</enableResourceNameDnsAAAARecord></privateDnsNameOptions><maintenanceOptions><autoRecovery>default</autoRecovery></maintenanceOptions><currentInstanceBootMode>uefi</currentInstanceBootMode>`;
  return { fields, tags };
}

function describeInstances(ctx: QueryHandlerContext): { body: string } {
  const { runtime, params, region } = ctx;
  const world = runtime.world;
  const filters = parseFilters(params);
  const ids = parseIndexed(params, 'InstanceId');
  const maxRaw = one(params, 'MaxResults');
  const tokenRaw = one(params, 'NextToken');
  if (maxRaw !== undefined && ids.length > 0) {
    throw new QueryError(
      400,
      'InvalidParameterCombination',
      'The parameter instancesSet cannot be used with the parameter maxResults',
    );
  }
  let max = Number.POSITIVE_INFINITY;
  if (maxRaw !== undefined) {
    max = Number(maxRaw);
    if (!Number.isInteger(max) || max < 5 || max > 1000) {
      throw new QueryError(
        400,
        'InvalidParameterValue',
        `Value ( ${maxRaw} ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`,
      );
    }
  }
  const all: Array<{ cluster: ClusterState; node: SandboxNode }> = [];
  for (const cluster of world.inRegion(region)) {
    for (const node of cluster.nodes) {
      if (node.kind === 'fargate' || node.kind === 'hybrid') continue;
      all.push({ cluster, node });
    }
  }
  if (ids.length > 0) {
    const missing = ids.filter((id) => !all.some((x) => x.node.id === id));
    if (missing.length > 0) {
      throw new QueryError(
        400,
        'InvalidInstanceID.NotFound',
        `The instance IDs '${missing.join(', ')}' do not exist`,
      );
    }
  }
  // A listing is a snapshot taken at its first page (as EC2's NextToken is): continuation pages
  // reuse that selection, so paging 100k instances costs one filter pass, not one per page.
  const selectionKey = `${region}\n${JSON.stringify(filters)}\n${ids.join(',')}`;
  const continuing = tokenRaw !== undefined && tokenRaw !== '';
  const cached = continuing ? selections.get(runtime)?.get(selectionKey) : undefined;
  const selected =
    cached ??
    all.filter(({ cluster, node }) => {
      if (ids.length > 0 && !ids.includes(node.id)) return false;
      const tags = instanceTags(cluster, node);
      const profile = instanceProfileOfNode(world, cluster, node)?.arn ?? '';
      return filters.every((f) => matchesFilter(f, node, tags, profile));
    });
  if (!continuing && Number.isFinite(max) && selected.length > max) {
    const byKey = selections.get(runtime) ?? new Map();
    selections.set(runtime, byKey);
    byKey.set(selectionKey, selected);
  }
  const salt = `ec2/${region}`;
  let start = 0;
  if (tokenRaw !== undefined && tokenRaw !== '') {
    const offset = decodeToken(tokenRaw, salt);
    if (offset === undefined)
      throw new QueryError(400, 'InvalidPaginationToken', 'The pagination token is invalid.');
    start = offset;
  }
  const page = selected.slice(start, start + max);
  const next = start + max < selected.length ? encodeToken(start + max, salt) : undefined;
  const items = page
    .map(({ cluster, node }) => {
      const tags = instanceTags(cluster, node)
        .map(([k, v]) => `<item><key>${xmlEscape(k)}</key><value>${xmlEscape(v)}</value></item>`)
        .join('');
      const ip = instanceProfileOfNode(world, cluster, node);
      const profile = ip
        ? `<iamInstanceProfile><arn>${xmlEscape(ip.arn)}</arn><id>${ip.id}</id></iamInstanceProfile>`
        : '';
      const running = node.instanceState === 'running' || node.instanceState === 'pending';
      const full =
        runtime.ec2InstanceDetail === 'full' ? fullInstanceDetail(node, world.accountId) : undefined;
      return `<item><reservationId>r-${node.id.slice(2)}</reservationId><ownerId>${world.accountId}</ownerId><groupSet/><instancesSet><item><instanceId>${xmlEscape(node.id)}</instanceId><imageId>ami-0abcdef1234567890</imageId><instanceState><code>${STATE_CODES[node.instanceState]}</code><name>${node.instanceState}</name></instanceState><privateDnsName>${running ? xmlEscape(node.nodeName ?? '') : ''}</privateDnsName><dnsName/><amiLaunchIndex>0</amiLaunchIndex><instanceType>${xmlEscape(node.instanceType)}</instanceType><launchTime>${node.launchTime}</launchTime><placement><availabilityZone>${node.availabilityZone}</availabilityZone><tenancy>default</tenancy></placement><platformDetails>${node.os === 'windows' ? 'Windows' : 'Linux/UNIX'}</platformDetails>${node.os === 'windows' ? '<platform>windows</platform>' : ''}<privateIpAddress>${running ? node.privateIp : ''}</privateIpAddress>${profile}<architecture>x86_64</architecture>${full?.fields ?? ''}<tagSet>${tags}${full?.tags ?? ''}</tagSet></item></instancesSet></item>`;
    })
    .join('');
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstancesResponse xmlns="${NAMESPACES.ec2}"><requestId>${ctx.reqId}</requestId><reservationSet>${items}</reservationSet>${next ? `<nextToken>${next}</nextToken>` : ''}</DescribeInstancesResponse>`;
  return { body };
}

// -----------------------------------------------------------------------------------------------
// IAM

const TRUST_POLICY = encodeURIComponent(
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
  }),
);

function roleXml(ctx: QueryHandlerContext, name: string): string {
  const role = ctx.runtime.world.iamRoles.get(name.toLowerCase());
  if (!role || role.state === 'missing') {
    throw new QueryError(404, 'NoSuchEntity', `The role with name ${name} cannot be found.`);
  }
  return `<Path>${xmlEscape(role.path)}</Path><RoleName>${xmlEscape(role.roleName)}</RoleName><RoleId>${role.roleId}</RoleId><Arn>${xmlEscape(role.arn)}</Arn><CreateDate>${role.createDate}</CreateDate><AssumeRolePolicyDocument>${role.trustPolicy === undefined ? TRUST_POLICY : xmlEscape(encodeURIComponent(role.trustPolicy))}</AssumeRolePolicyDocument><MaxSessionDuration>3600</MaxSessionDuration>`;
}

function getRole(ctx: QueryHandlerContext): { body: string } {
  const name = one(ctx.params, 'RoleName');
  if (!name) throw new QueryError(400, 'ValidationError', 'RoleName is required.');
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<GetRoleResponse xmlns="${NAMESPACES.iam}"><GetRoleResult><Role>${roleXml(ctx, name)}</Role></GetRoleResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></GetRoleResponse>`,
  };
}

function listOpenIdConnectProviders(ctx: QueryHandlerContext): { body: string } {
  const members = ctx.runtime.world.oidcProviders
    .map((arn) => `<member><Arn>${xmlEscape(arn)}</Arn></member>`)
    .join('');
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<ListOpenIDConnectProvidersResponse xmlns="${NAMESPACES.iam}"><ListOpenIDConnectProvidersResult><OpenIDConnectProviderList>${members}</OpenIDConnectProviderList></ListOpenIDConnectProvidersResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></ListOpenIDConnectProvidersResponse>`,
  };
}

/** GetOpenIDConnectProvider of a listed provider: its URL, client IDs (default sts.amazonaws.com) and a thumbprint. */
function getOpenIdConnectProvider(ctx: QueryHandlerContext): { body: string } {
  const arn = one(ctx.params, 'OpenIDConnectProviderArn');
  if (!arn) throw new QueryError(400, 'ValidationError', 'OpenIDConnectProviderArn is required.');
  const world = ctx.runtime.world;
  if (!world.oidcProviders.includes(arn)) {
    throw new QueryError(404, 'NoSuchEntity', `OpenIDConnect Provider not found for arn ${arn}`);
  }
  const url = arn.slice(arn.indexOf(':oidc-provider/') + ':oidc-provider/'.length);
  const clientIds = (world.oidcProviderClientIds.get(arn) ?? ['sts.amazonaws.com'])
    .map((id) => `<member>${xmlEscape(id)}</member>`)
    .join('');
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<GetOpenIDConnectProviderResponse xmlns="${NAMESPACES.iam}"><GetOpenIDConnectProviderResult><Url>${xmlEscape(url)}</Url><ClientIDList>${clientIds}</ClientIDList><ThumbprintList><member>9e99a48a9960b14926bb7f3b02e22da2b0ab7280</member></ThumbprintList><CreateDate>2024-01-01T00:00:00Z</CreateDate><Tags/></GetOpenIDConnectProviderResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></GetOpenIDConnectProviderResponse>`,
  };
}

/** SimulatePrincipalPolicy of a role over its attached and inline policies (iam-policy-eval.ts). */
function simulatePrincipalPolicy(ctx: QueryHandlerContext): { body: string } {
  const source = one(ctx.params, 'PolicySourceArn');
  if (!source) throw new QueryError(400, 'ValidationError', 'PolicySourceArn is required.');
  const actions = parseIndexed(ctx.params, 'ActionNames.member');
  if (actions.length === 0) throw new QueryError(400, 'ValidationError', 'ActionNames is required.');
  const name = parseRoleArn(source)?.name;
  const role = name === undefined ? undefined : ctx.runtime.world.iamRoles.get(name.toLowerCase());
  if (!role || role.state === 'missing') {
    throw new QueryError(400, 'NoSuchEntity', `The role with name ${name ?? source} cannot be found.`);
  }
  const results = actions
    .map(
      (action) =>
        `<member><EvalActionName>${xmlEscape(action)}</EvalActionName><EvalResourceName>*</EvalResourceName><EvalDecision>${simulateAction(role, action)}</EvalDecision><MatchedStatements/><MissingContextValues/></member>`,
    )
    .join('');
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<SimulatePrincipalPolicyResponse xmlns="${NAMESPACES.iam}"><SimulatePrincipalPolicyResult><IsTruncated>false</IsTruncated><EvaluationResults>${results}</EvaluationResults></SimulatePrincipalPolicyResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></SimulatePrincipalPolicyResponse>`,
  };
}

function getInstanceProfile(ctx: QueryHandlerContext): { body: string } {
  const name = one(ctx.params, 'InstanceProfileName');
  if (!name) throw new QueryError(400, 'ValidationError', 'InstanceProfileName is required.');
  const world = ctx.runtime.world;
  const profile = world.instanceProfiles.get(name.toLowerCase());
  const role = profile
    ? world.iamRoles.get((parseRoleArn(profile.roleArn)?.name ?? '').toLowerCase())
    : undefined;
  if (!profile || !role) {
    throw new QueryError(404, 'NoSuchEntity', `Instance Profile ${name} cannot be found.`);
  }
  const roles = role.state === 'missing' ? '' : `<member>${roleXml(ctx, role.roleName)}</member>`;
  const arn = `arn:aws:iam::${parseRoleArn(profile.roleArn)?.accountId ?? world.accountId}:instance-profile/${profile.name}`;
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<GetInstanceProfileResponse xmlns="${NAMESPACES.iam}"><GetInstanceProfileResult><InstanceProfile><InstanceProfileId>AIPA${role.roleId.slice(4)}</InstanceProfileId><Roles>${roles}</Roles><InstanceProfileName>${xmlEscape(name)}</InstanceProfileName><Path>/</Path><Arn>${xmlEscape(arn)}</Arn><CreateDate>${role.createDate}</CreateDate></InstanceProfile></GetInstanceProfileResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></GetInstanceProfileResponse>`,
  };
}

// -----------------------------------------------------------------------------------------------
// STS

function getCallerIdentity(ctx: QueryHandlerContext): { body: string } {
  const p = ctx.principal;
  const account = parseRoleArn(p.arn)?.accountId ?? ctx.runtime.world.accountId;
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<GetCallerIdentityResponse xmlns="${NAMESPACES.sts}"><GetCallerIdentityResult><Arn>${xmlEscape(p.stsArn)}</Arn><UserId>${p.roleId}:${xmlEscape(p.sessionName)}</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
  };
}

// -----------------------------------------------------------------------------------------------
// SNS

const SNS_MAX_BYTES = 256 * 1024;

function publish(ctx: QueryHandlerContext): { body: string; json: Record<string, unknown> } {
  const topicArn = one(ctx.params, 'TopicArn');
  const message = one(ctx.params, 'Message');
  const subject = one(ctx.params, 'Subject');
  if (!topicArn || !/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]{1,256}$/.test(topicArn)) {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: TopicArn');
  }
  if (message === undefined || message === '') {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: Empty message');
  }
  if (subject !== undefined && (subject.length === 0 || subject.length > 100 || /[\r\n]/.test(subject))) {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: Subject');
  }
  const structure = one(ctx.params, 'MessageStructure');
  if (structure !== undefined && structure !== 'json') {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: MessageStructure');
  }
  if (structure === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      throw new QueryError(
        400,
        'InvalidParameter',
        'Invalid parameter: Message Structure - JSON message body failed to parse',
      );
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      typeof (parsed as { default?: unknown }).default !== 'string'
    ) {
      throw new QueryError(
        400,
        'InvalidParameter',
        'Invalid parameter: Message Structure - No default entry in JSON message body',
      );
    }
  }
  const attributes: Record<string, { DataType: string; StringValue?: string }> = {};
  let size = Buffer.byteLength(message);
  for (const [k, v] of ctx.params) {
    const m = /^MessageAttributes\.entry\.(\d+)\.Name$/.exec(k);
    if (!m || v[0] === undefined) continue;
    const dataType = one(ctx.params, `MessageAttributes.entry.${m[1]}.Value.DataType`);
    const stringValue = one(ctx.params, `MessageAttributes.entry.${m[1]}.Value.StringValue`);
    if (!dataType)
      throw new QueryError(
        400,
        'ParameterValueInvalid',
        `The message attribute '${v[0]}' must contain a DataType.`,
      );
    const attr: { DataType: string; StringValue?: string } = { DataType: dataType };
    if (stringValue !== undefined) attr.StringValue = stringValue;
    attributes[v[0]] = attr;
    size += Buffer.byteLength(v[0]) + Buffer.byteLength(dataType) + Buffer.byteLength(stringValue ?? '');
  }
  if (Object.keys(attributes).length > 10) {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: MessageAttributes (at most 10)');
  }
  if (size > SNS_MAX_BYTES) {
    throw new QueryError(400, 'InvalidParameter', 'Invalid parameter: Message too long');
  }
  const record: SnsRecord = { topicArn, message, messageAttributes: attributes };
  if (subject !== undefined) record.subject = subject;
  if (structure !== undefined) record.messageStructure = structure;
  ctx.runtime.sns.push(record);
  const messageId = crypto.randomUUID();
  return {
    json: { MessageId: messageId },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<PublishResponse xmlns="${NAMESPACES.sns}"><PublishResult><MessageId>${messageId}</MessageId></PublishResult><ResponseMetadata><RequestId>${ctx.reqId}</RequestId></ResponseMetadata></PublishResponse>`,
  };
}
