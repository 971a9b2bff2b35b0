// Local osls plugin (serverless.yml `plugins`): before `serverless package` / `deploy` packages
// anything, it stops with one line per problem — instead of osls's own "No file matches include /
// exclude patterns", or a stack whose functions fail at their first cold start:
//   - the function bundles are missing: run `npm run bundle` (or `npm run package`);
//   - the VPC parameters do not fit together (scripts/serverless/network.cjs);
//   - `regions` or `slackWebhookParameter` is not of the shape the functions accept;
//   - a `--param` (or a key of the stage's `params:` block) names no parameter of serverless.yml:
//     osls would take a typo silently and deploy the default.
// Before `serverless invoke local` it checks that function's bundle.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;
/** The functions' permissions boundary lets them read these parameters only (infra/iam). */
const PARAMETER_PREFIX = '/eks-auth-sentinel/';

/** `dist/functions/report/index.handler` → `dist/functions/report/index.js`. */
const bundleOf = (handler) => `${String(handler).replace(/\.[^./]+$/, '')}.js`;

class SentinelPreflight {
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options ?? {};
    this.hooks = {
      'before:package:initialize': () => this.check(this.packageProblems()),
      'before:invoke:local:invoke': () => this.check(this.bundleProblems([this.options.function])),
    };
  }

  bundleProblems(names) {
    const { service, serviceDir } = this.serverless;
    const missing = names
      .map((name) => service.functions?.[name]?.handler)
      .filter((handler) => handler !== undefined)
      .map(bundleOf)
      .filter((file) => !existsSync(join(serviceDir, file)));
    if (missing.length === 0) return [];
    return [
      `no bundle at ${missing.join(', ')}: run \`npm run bundle\` first (\`npm run package\` bundles and packages)`,
    ];
  }

  /** `--param=NAME=…` and `params.<stage>` keys that serverless.yml does not know. */
  paramProblems() {
    const params = this.serverless.configurationInput?.params ?? {};
    // `target` is internal: which values the functions' environment points at (local or deployed).
    const known = Object.keys(params.default ?? {}).filter((name) => name !== 'target');
    const list = `the parameters are ${known.join(', ')}`;
    const given = this.options.param ?? this.serverless.processedInput?.options?.param ?? [];
    const problems = [];
    for (const item of Array.isArray(given) ? given : [given]) {
      // Only the name: the value may be a secret pasted by mistake.
      const name = String(item).split('=')[0].trim();
      if (!known.includes(name)) problems.push(`--param=${name}=…: no parameter "${name}"; ${list}`);
    }
    const stage = this.serverless.service.provider?.stage;
    for (const name of Object.keys(params[stage] ?? {})) {
      if (name !== 'target' && !known.includes(name)) {
        problems.push(`params.${stage}.${name} in serverless.yml: no parameter "${name}"; ${list}`);
      }
    }
    return problems;
  }

  packageProblems() {
    const { service } = this.serverless;
    const problems = [...this.paramProblems(), ...(service.custom?.network?.problems ?? [])];
    const env = service.provider?.environment ?? {};
    // `--stage local` takes these from the shell for `invoke local`; it is never deployed.
    if (service.provider?.stage !== 'local') {
      const regions = String(env.SENTINEL_REGIONS ?? '').split(',');
      for (const region of regions.map((r) => r.trim())) {
        if (!REGION.test(region)) {
          problems.push(`regions: "${region}" is not a Region: --param=regions=eu-west-1,us-east-1`);
        }
      }
      const slack = String(env.SENTINEL_SLACK_WEBHOOK_PARAMETER ?? '');
      if (slack !== 'disabled' && !slack.startsWith(PARAMETER_PREFIX)) {
        problems.push(
          `slackWebhookParameter: "${slack}" is neither an SSM parameter name under ${PARAMETER_PREFIX} (the functions' permissions boundary allows no other) nor "disabled": --param=slackWebhookParameter=/eks-auth-sentinel/slack-webhook`,
        );
      }
      const bot = String(env.SENTINEL_SLACK_BOT_TOKEN_PARAMETER ?? 'disabled');
      if (bot !== 'disabled' && !bot.startsWith(PARAMETER_PREFIX)) {
        problems.push(
          // The value is not echoed: it may be the token itself, pasted by mistake.
          `slackBotTokenParameter: neither an SSM parameter name under ${PARAMETER_PREFIX} nor "disabled" (the name of the parameter, never the token): --param=slackBotTokenParameter=/eks-auth-sentinel/slack-bot-token`,
        );
      }
      if (bot !== 'disabled' && slack !== 'disabled') {
        problems.push(
          'slackBotTokenParameter: set either it or slackWebhookParameter, not both: drop --param=slackWebhookParameter=…',
        );
      }
      const remediation = String(env.SENTINEL_REMEDIATION ?? 'off');
      if (!['off', 'dry-run', 'on'].includes(remediation)) {
        problems.push(`remediation: "${remediation}" is not off, dry-run or on: --param=remediation=dry-run`);
      }
      const cap = Number(env.SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR ?? '10');
      if (!Number.isInteger(cap) || cap < 1 || cap > 100) {
        problems.push(
          'remediationMaxActionsPerHour: an integer from 1 to 100: --param=remediationMaxActionsPerHour=10',
        );
      }
      if (bot !== 'disabled' && !/^[CGD][A-Z0-9]{6,20}$/.test(String(env.SENTINEL_SLACK_CHANNEL ?? ''))) {
        problems.push(
          'slackChannel: a channel ID is needed with slackBotTokenParameter: --param=slackChannel=C0123456789',
        );
      }
    }
    return [...problems, ...this.bundleProblems(Object.keys(service.functions ?? {}))];
  }

  check(problems) {
    if (problems.length > 0)
      throw new this.serverless.classes.Error(problems.join('\n'), 'SENTINEL_PREFLIGHT');
  }
}

module.exports = SentinelPreflight;
