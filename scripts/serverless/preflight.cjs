// Local osls plugin (serverless.yml `plugins`): before `serverless package` / `deploy` packages
// anything, it stops with one line per problem — instead of osls's own "No file matches include /
// exclude patterns", or a stack whose functions fail at their first cold start:
//   - the function bundles are missing: run `npm run bundle` (or `npm run package`);
//   - the VPC parameters do not fit together (scripts/serverless/network.cjs);
//   - `regions` or `slackWebhookParameter` is not of the shape the functions accept.
// Before `serverless invoke local` it checks that function's bundle.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

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

  packageProblems() {
    const { service } = this.serverless;
    const problems = [...(service.custom?.network?.problems ?? [])];
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
      if (slack !== 'disabled' && !slack.startsWith('/')) {
        problems.push(
          `slackWebhookParameter: "${slack}" is neither an SSM parameter name starting with / nor "disabled": --param=slackWebhookParameter=/eks-auth-sentinel/slack-webhook`,
        );
      }
      const bot = String(env.SENTINEL_SLACK_BOT_TOKEN_PARAMETER ?? 'disabled');
      if (bot !== 'disabled' && !bot.startsWith('/')) {
        problems.push(
          // The value is not echoed: it may be the token itself, pasted by mistake.
          'slackBotTokenParameter: neither an SSM parameter name starting with / nor "disabled" (the name of the parameter, never the token): --param=slackBotTokenParameter=/eks-auth-sentinel/slack-bot-token',
        );
      }
      if (bot !== 'disabled' && slack !== 'disabled') {
        problems.push(
          'slackBotTokenParameter: set either it or slackWebhookParameter, not both: drop --param=slackWebhookParameter=…',
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
