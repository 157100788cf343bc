#!/usr/bin/env node
// Validates the deployment files (docs/adr/0031):
//   - docker-compose.yml: `docker-compose config -q` with a throwaway .env of fresh secrets, then the
//     project's rules on the resolved file (scripts/deploy-validation/compose-rules.mjs);
//   - deploy/kubernetes/base and every deploy/kubernetes/overlays/*: rendered with kustomize, every
//     object checked against the Kubernetes OpenAPI schema of its kind (kubernetes-models), then the
//     project's rules (probes, resources, PDBs, HPA targets, image tags, Postgres connection budget).
//
//   npm run deploy:validate                       everything above
//   node scripts/validate-deploy.mjs --compose <file>      one compose file
//   node scripts/validate-deploy.mjs --kustomize <dir>     one kustomization
//   node scripts/validate-deploy.mjs --manifests <file>    an already rendered YAML stream
//
// Prints one line per problem ("<source>: <Kind/name or service>: <problem>") and exits 1 on any.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { composeProblems, ONE_SHOTS } from './deploy-validation/compose-rules.mjs';
import { schemaProblems } from './deploy-validation/kubernetes-schemas.mjs';
import { ruleProblems } from './deploy-validation/kubernetes-rules.mjs';
import { renderCompose, renderKustomization, RenderError } from './deploy-validation/render.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A path as the report names it: relative inside the repository, absolute elsewhere. */
function sourceName(where) {
  const relative = path.relative(REPO_ROOT, where);
  return relative === '' || relative.startsWith('..') ? where : relative;
}

function parseStream(text, source) {
  const documents = YAML.parseAllDocuments(text, { merge: true });
  const broken = documents.flatMap((d) => d.errors.map((e) => `${source}: YAML: ${e.message}`));
  if (broken.length > 0) throw new RenderError(broken.join('\n'));
  return documents.map((d) => d.toJSON()).filter((o) => o !== null && o !== undefined);
}

/** Schema, then rules, over one rendered set of objects. */
async function checkObjects(objects, source) {
  const lines = [];
  for (const object of objects) {
    for (const problem of await schemaProblems(object)) lines.push(`${source}: ${object.kind}/${object.metadata?.name ?? '(no name)'}: ${problem}`);
  }
  const { problems, connections, total } = ruleProblems(objects);
  for (const p of problems) lines.push(`${source}: ${p.where}: ${p.message}`);
  const summary = `${source}: ${objects.length} objects` + (connections.length ? `, Postgres connections at peak ${total} (${connections.map((c) => `${c.what} ${c.pods}×${c.perPod}`).join(', ')})` : '');
  return { lines, summary };
}

async function checkKustomization(dir) {
  const source = sourceName(dir);
  return checkObjects(parseStream(renderKustomization(dir), source), source);
}

function checkCompose(file) {
  const source = sourceName(file);
  const raw = YAML.parse(readFileSync(file, 'utf8'), { merge: true }) ?? {};
  const profiles = [...new Set(Object.values(raw.services ?? {}).flatMap((s) => s?.profiles ?? []))];
  const config = YAML.parse(renderCompose(REPO_ROOT, file, profiles));
  const lines = composeProblems(config).map((p) => `${source}: ${p.where}: ${p.message}`);
  const oneShots = Object.keys(config.services ?? {}).filter((s) => s in ONE_SHOTS);
  const summary = `${source}: ${Object.keys(config.services ?? {}).length} services (profiles: ${profiles.join(', ') || 'none'}), one-shots without healthcheck: ${oneShots.join(', ') || 'none'}`;
  return { lines, summary };
}

function kustomizations() {
  const root = path.join(REPO_ROOT, 'deploy/kubernetes');
  const overlays = path.join(root, 'overlays');
  const dirs = [path.join(root, 'base'), ...(existsSync(overlays) ? readdirSync(overlays).sort().map((d) => path.join(overlays, d)) : [])];
  return dirs.filter((d) => existsSync(path.join(d, 'kustomization.yaml')));
}

async function main(argv) {
  const tasks = [];
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new RenderError(`${flag} needs a path`);
    const where = path.resolve(value);
    if (flag === '--compose') tasks.push(() => checkCompose(where));
    else if (flag === '--kustomize') tasks.push(() => checkKustomization(where));
    else if (flag === '--manifests') tasks.push(() => checkObjects(parseStream(readFileSync(where, 'utf8'), value), value));
    else throw new RenderError(`unknown option ${flag} (--compose <file>, --kustomize <dir>, --manifests <file>)`);
  }
  if (tasks.length === 0) {
    tasks.push(() => checkCompose(path.join(REPO_ROOT, 'docker-compose.yml')));
    for (const dir of kustomizations()) tasks.push(() => checkKustomization(dir));
  }
  let failed = 0;
  for (const task of tasks) {
    const { lines, summary } = await task();
    console.log(`${lines.length === 0 ? 'ok  ' : 'FAIL'} ${summary}`);
    for (const line of lines) console.error(line);
    failed += lines.length;
  }
  return failed;
}

main(process.argv.slice(2)).then(
  (failed) => {
    if (failed > 0) console.error(`deploy:validate: ${failed} problem(s)`);
    process.exitCode = failed > 0 ? 1 : 0;
  },
  (err) => {
    console.error(err instanceof RenderError ? `deploy:validate: ${err.message}` : err);
    process.exitCode = 2;
  },
);
