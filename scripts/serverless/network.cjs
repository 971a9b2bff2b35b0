// serverless.yml `custom.network`: where the functions that talk to Kubernetes run.
//
//   --param=subnetIds=subnet-…,subnet-…  --param=securityGroupIds=sg-…
//     → `vpc` for snapshotWorker, onEksEvent and report (private cluster endpoints), and the
//       AWSLambdaVPCAccessExecutionRole managed policy on their roles (Lambda creates their ENIs
//       with the role's permissions);
//   neither → `vpc: false` and no managed policy: the template has no VpcConfig at all.
//
// Anything else (one without the other, an ID of the wrong shape) is a `problems` line, which
// scripts/serverless/preflight.cjs turns into a packaging error. A function of the Serverless
// variables API (`${file(…)}` calls it with `resolveVariable`): runs offline, no AWS call.
'use strict';

const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;

const list = (value) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** Pure: the two parameter values → `{ vpc, managedPolicyArns, problems }`. */
function network(subnetParam, securityGroupParam) {
  const subnetIds = list(subnetParam);
  const securityGroupIds = list(securityGroupParam);
  const problems = [];
  for (const id of subnetIds) {
    if (!SUBNET.test(id)) problems.push(`subnetIds: "${id}" is not a subnet ID (subnet-0123456789abcdef0)`);
  }
  for (const id of securityGroupIds) {
    if (!SECURITY_GROUP.test(id)) {
      problems.push(`securityGroupIds: "${id}" is not a security group ID (sg-0123456789abcdef0)`);
    }
  }
  if (subnetIds.length > 0 && securityGroupIds.length === 0) {
    problems.push('subnetIds is set but securityGroupIds is not: add --param=securityGroupIds=sg-…');
  }
  if (securityGroupIds.length > 0 && subnetIds.length === 0) {
    problems.push('securityGroupIds is set but subnetIds is not: add --param=subnetIds=subnet-…,subnet-…');
  }
  if (subnetIds.length > 16) problems.push(`subnetIds: ${subnetIds.length} subnets, Lambda takes at most 16`);
  if (securityGroupIds.length > 5) {
    problems.push(`securityGroupIds: ${securityGroupIds.length} groups, Lambda takes at most 5`);
  }
  const inVpc = problems.length === 0 && subnetIds.length > 0;
  return {
    vpc: inVpc ? { subnetIds, securityGroupIds } : false,
    managedPolicyArns: inVpc
      ? [
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole',
              ],
            ],
          },
        ]
      : [],
    problems,
  };
}

module.exports = async ({ resolveVariable }) =>
  network(await resolveVariable('param:subnetIds'), await resolveVariable('param:securityGroupIds'));
module.exports.network = network;
