/**
 * Terraform 1.11 (`/usr/local/bin/terraform`), offline, with the AWS provider from the machine's
 * filesystem mirror (`/opt/tf-plugins`, registry.terraform.io/hashicorp/aws 5.100.0): the proof
 * that a Terraform fix the product prints is what its label says.
 *
 * - `fmtCheck(text)`: `terraform fmt -check` of the text as a file (no provider needed).
 * - `validate(files)`: `terraform validate` of each text as the whole of a root module. One
 *   `terraform init` per harness (a test file) into a plugin cache shared by every harness
 *   (TF_PLUGIN_CACHE_DIR), then the files are validated together, each as a child module of one
 *   root (one provider schema load, ≈ 10 s however many files); a file with any diagnostic, or
 *   any diagnostic not attributable to one file, is validated again alone as the root module, and
 *   that answer is the one returned. A child module accepts nothing a root module refuses.
 *
 * Both tools ship with the machines this project is built on: `terraformHarness()`
 * throws (the test fails, loudly) when the binary or the mirror is missing; it never skips.
 * The CLI configuration is the harness's own temporary file (TF_CLI_CONFIG_FILE): the mirror for
 * hashicorp/aws and no direct installation of it, so no run touches the network.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TERRAFORM_BIN = process.env.EKS_SENTINEL_TERRAFORM ?? '/usr/local/bin/terraform';
export const TF_MIRROR = process.env.EKS_SENTINEL_TF_MIRROR ?? '/opt/tf-plugins';
const AWS_IN_MIRROR = 'registry.terraform.io/hashicorp/aws';
/** Shared by every harness of every test file: the provider binary (≈ 700 MB) is linked, not copied. */
const PLUGIN_CACHE = join(tmpdir(), 'eks-auth-sentinel-tf-plugin-cache');

export interface TfDiagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  /** `main.tf` line, when Terraform names one. */
  line?: number;
}

export interface TfResult {
  ok: boolean;
  diagnostics: TfDiagnostic[];
  /** How it was decided: with the others in one run, or alone as the root module. */
  how: 'batch' | 'alone';
}

export interface FmtResult {
  ok: boolean;
  /** Terraform's message: the parse error, or that the layout differs from `terraform fmt`'s. */
  message: string;
}

export interface TerraformHarness {
  version: string;
  providerVersion: string;
  fmtCheck(text: string): Promise<FmtResult>;
  validate(files: readonly string[]): Promise<TfResult[]>;
  close(): void;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      TERRAFORM_BIN,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
        if (code === undefined)
          reject(new Error(`terraform ${args.join(' ')}: ${error?.message}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** The provider versions the mirror holds, or why there is none. */
function mirrorVersions(): string[] {
  const dir = join(TF_MIRROR, AWS_IN_MIRROR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((v) => existsSync(join(dir, v, 'linux_amd64')));
}

/** Why the harness cannot run here, or undefined when it can. */
export function terraformUnavailable(): string | undefined {
  if (!existsSync(TERRAFORM_BIN))
    return `${TERRAFORM_BIN} is missing (Terraform 1.11 ships with this machine)`;
  if (mirrorVersions().length === 0)
    return `the AWS provider mirror ${join(TF_MIRROR, AWS_IN_MIRROR)}/<version>/linux_amd64 is missing (it ships with Terraform 1.11 on this machine)`;
  return undefined;
}

function diagnosticsOf(json: string): Array<TfDiagnostic & { file?: string }> {
  const parsed = JSON.parse(json) as {
    diagnostics?: Array<{
      severity: 'error' | 'warning';
      summary: string;
      detail?: string;
      range?: { filename?: string; start?: { line?: number } };
    }>;
  };
  return (parsed.diagnostics ?? []).map((d) => ({
    severity: d.severity,
    summary: d.summary,
    ...(d.detail ? { detail: d.detail } : {}),
    ...(d.range?.start?.line === undefined ? {} : { line: d.range.start.line }),
    ...(d.range?.filename === undefined ? {} : { file: d.range.filename }),
  }));
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/**
 * Writes the CLI configuration and runs `terraform init` once (the shared plugin cache makes a
 * second harness's init a link). Throws when Terraform or the mirror is missing, or init fails.
 */
export async function terraformHarness(): Promise<TerraformHarness> {
  const missing = terraformUnavailable();
  if (missing !== undefined)
    throw new Error(
      `TERRAFORM NOT AVAILABLE: ${missing}. The Terraform fixes cannot be proven without it; this test does not skip.`,
    );
  const root = mkdtempSync(join(tmpdir(), 'eks-auth-sentinel-tf-'));
  mkdirSync(PLUGIN_CACHE, { recursive: true });
  const cliConfig = join(root, 'cli.tfrc');
  writeFileSync(
    cliConfig,
    [
      'provider_installation {',
      '  filesystem_mirror {',
      `    path    = ${JSON.stringify(TF_MIRROR)}`,
      `    include = ["${AWS_IN_MIRROR}"]`,
      '  }',
      '  direct {',
      `    exclude = ["${AWS_IN_MIRROR}"]`,
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_PLUGIN_CACHE_DIR: PLUGIN_CACHE,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
  };
  const dataDir = join(root, 'data');
  const initDir = join(root, 'init');
  mkdirSync(initDir);
  writeFileSync(
    join(initDir, 'main.tf'),
    'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n',
  );
  const init = await run(['init', '-backend=false', '-input=false', '-no-color'], initDir, {
    ...env,
    TF_DATA_DIR: dataDir,
  });
  if (init.code !== 0)
    throw new Error(`terraform init failed (offline, mirror ${TF_MIRROR}):\n${init.stdout}${init.stderr}`);
  const lockText = readFileSync(join(initDir, '.terraform.lock.hcl'), 'utf8');
  const { terraform_version: tfVersion, provider_selections: selections } = JSON.parse(
    (await run(['version', '-json'], initDir, { ...env, TF_DATA_DIR: dataDir })).stdout,
  ) as { terraform_version: string; provider_selections?: Record<string, string> };
  let counter = 0;
  const freshDir = (name: string) => {
    const dir = join(root, `${name}-${++counter}`);
    mkdirSync(dir);
    return dir;
  };

  async function validateAlone(text: string): Promise<TfResult> {
    const dir = freshDir('alone');
    writeFileSync(join(dir, 'main.tf'), withNewline(text));
    writeFileSync(join(dir, '.terraform.lock.hcl'), lockText);
    const r = await run(['validate', '-json', '-no-color'], dir, { ...env, TF_DATA_DIR: dataDir });
    rmSync(dir, { recursive: true, force: true });
    const diagnostics = diagnosticsOf(r.stdout).map(({ file: _f, ...d }) => d);
    return {
      ok: r.code === 0 && !diagnostics.some((d) => d.severity === 'error'),
      diagnostics,
      how: 'alone',
    };
  }

  /** 'valid', or the positions of the files an error names, or 'unattributed'. */
  async function validateBatch(texts: readonly string[]): Promise<'valid' | 'unattributed' | Set<number>> {
    const dir = freshDir('batch');
    texts.forEach((text, i) => {
      mkdirSync(join(dir, `f${i}`));
      writeFileSync(join(dir, `f${i}`, 'main.tf'), withNewline(text));
    });
    writeFileSync(
      join(dir, 'main.tf'),
      texts.map((_, i) => `module "f${i}" {\n  source = "./f${i}"\n}\n`).join('\n'),
    );
    const batchEnv = { ...env, TF_DATA_DIR: join(dir, '.terraform') };
    try {
      const init = await run(['init', '-backend=false', '-input=false', '-no-color'], dir, batchEnv);
      if (init.code !== 0) {
        // init refuses a configuration error before validate could run: its text names the file
        const named = new Set(
          [...`${init.stdout}${init.stderr}`.matchAll(/ on f(\d+)[/\\]main\.tf line /g)].map((m) =>
            Number(m[1]),
          ),
        );
        return named.size === 0 ? 'unattributed' : named;
      }
      const r = await run(['validate', '-json', '-no-color'], dir, batchEnv);
      const errors = diagnosticsOf(r.stdout).filter((d) => d.severity === 'error');
      if (r.code === 0 && errors.length === 0) return 'valid';
      const named = new Set<number>();
      for (const d of errors) {
        const m = /^f(\d+)[/\\]main\.tf$/.exec(d.file ?? '');
        if (m === null) return 'unattributed';
        named.add(Number(m[1]));
      }
      return named;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  return {
    version: tfVersion,
    providerVersion: selections?.[AWS_IN_MIRROR] ?? mirrorVersions().join(','),
    async fmtCheck(text) {
      const r = await run(['fmt', '-check', '-no-color', '-'], root, env, withNewline(text));
      if (r.code === 0) return { ok: true, message: '' };
      const parseError = r.stderr
        .replace(/There are some problems with the CLI configuration:[\s\S]*?╵\n*/g, '')
        .trim();
      return {
        ok: false,
        message:
          parseError.length > 0 ? parseError : 'not in `terraform fmt` layout (fmt -check: changes needed)',
      };
    },
    async validate(files) {
      const results: Array<TfResult | undefined> = files.map(() => undefined);
      // Terraform stops before loading the provider's schema when a file has a configuration
      // error, so a batch with any error proves nothing about the files it did not name: those
      // that erred leave, the rest run again, until a batch is valid or nothing can be attributed.
      let batch = files.map((_, i) => i);
      while (batch.length > 1) {
        const verdict = await validateBatch(batch.map((i) => files[i] ?? ''));
        if (verdict === 'valid') {
          for (const i of batch) results[i] = { ok: true, diagnostics: [], how: 'batch' };
          break;
        }
        if (verdict === 'unattributed' || verdict.size === 0) break;
        batch = batch.filter((_, k) => !verdict.has(k));
      }
      const out: TfResult[] = [];
      for (const [i, text] of files.entries()) out.push(results[i] ?? (await validateAlone(text)));
      return out;
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
