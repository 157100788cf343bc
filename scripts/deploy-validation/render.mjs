// Runs the two renderers the validation trusts: kustomize (the overlays as `kubectl apply -k` builds
// them) and docker-compose (the file as compose itself resolves it: merge keys, variables, defaults).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class RenderError extends Error {}

/** True when `command args…` runs at all (exit code aside). */
function available(command, args) {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return !result.error;
}

/**
 * kustomize, as a standalone binary (`KUSTOMIZE=/path/to/kustomize`, or `kustomize` on PATH) or the
 * copy built into kubectl. No npm package ships a maintained kustomize (docs/adr/0031).
 */
function kustomizeCommand() {
  if (process.env.KUSTOMIZE) return [process.env.KUSTOMIZE, ['build']];
  if (available('kustomize', ['version'])) return ['kustomize', ['build']];
  if (available('kubectl', ['version', '--client'])) return ['kubectl', ['kustomize']];
  throw new RenderError(
    'neither kustomize nor kubectl is installed: the Kubernetes manifests are rendered with `kustomize build` or ' +
      '`kubectl kustomize` (install kubectl, or set KUSTOMIZE to a kustomize binary)',
  );
}

/** The YAML stream `kubectl apply -k dir` would send. */
export function renderKustomization(dir) {
  const [command, args] = kustomizeCommand();
  const result = spawnSync(command, [...args, dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new RenderError(`${command} ${args.join(' ')} ${dir} failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout;
}

function composeCommand() {
  if (available('docker-compose', ['version'])) return ['docker-compose', []];
  const v2 = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  if (!v2.error && v2.status === 0) return ['docker', ['compose']];
  throw new RenderError('docker-compose is not installed (Debian: apt-get install docker-compose; .ci/run installs it)');
}

/** A throwaway .env with fresh secrets from scripts/compose-env.sh: compose refuses to resolve the file without them. */
function withGeneratedEnv(repoRoot, fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'compose-env-'));
  try {
    const envFile = path.join(dir, '.env');
    writeFileSync(envFile, execFileSync('sh', [path.join(repoRoot, 'scripts/compose-env.sh')], { encoding: 'utf8' }), { mode: 0o600 });
    return fn(envFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `docker-compose config` of `file` with every profile on: first `-q` (compose's own schema and
 * interpolation checks), then the resolved file, for the structural rules.
 */
export function renderCompose(repoRoot, file, profiles) {
  const [command, prefix] = composeCommand();
  return withGeneratedEnv(repoRoot, (envFile) => {
    const base = [...prefix, '--env-file', envFile, '-f', file, ...profiles.flatMap((p) => ['--profile', p]), 'config'];
    for (const args of [[...base, '-q'], base]) {
      const result = spawnSync(command, args, { encoding: 'utf8', cwd: path.dirname(file), maxBuffer: 16 * 1024 * 1024 });
      if (result.status !== 0) throw new RenderError(`${command} ${args.slice(prefix.length).join(' ')} failed: ${(result.stderr || result.stdout).trim()}`);
      if (!args.includes('-q')) return result.stdout;
    }
    throw new Error('unreachable');
  });
}
