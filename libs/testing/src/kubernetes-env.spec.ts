import { ConfigError, loadConfig } from '@dc/config';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from './service-process';

/**
 * The Kubernetes manifests give each app exactly the secrets it needs (docs/security.md):
 * every Deployment's environment, built as the kubelet builds it (ConfigMap, then its `env`, with
 * the Secret template's placeholders replaced by strong values), passes that app's production
 * configuration check — and holds none of the secrets of the other apps.
 */
type Env = Record<string, string>;
interface Container {
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}

const manifest = (file: string) => YAML.parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'deploy/kubernetes/base', file), 'utf8')).map((d) => d.toJSON());
const configMap: Env = manifest('configmap.yaml')[0].data;
const secretTemplate: Env = manifest('secret.yaml')[0].stringData;

/** A value the production check accepts, for a Secret key whose template holds a placeholder. */
function strongValue(key: string, template: string): string {
  if (!template.startsWith('REPLACE_ME')) return template;
  if (key.endsWith('_KEY')) return randomBytes(32).toString('base64');
  if (key.startsWith('NATS_')) return `n${randomBytes(24).toString('hex')}`;
  return randomBytes(30).toString('base64url');
}
const secret: Env = Object.fromEntries(Object.entries(secretTemplate).map(([k, v]) => [k, strongValue(k, v)]));

function environmentOf(file: string): { env: Env; secretKeys: string[] } {
  const container: Container = manifest(file)[0].spec.template.spec.containers[0];
  const env: Env = {};
  const secretKeys: string[] = [];
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) throw new Error(`${file} loads the whole Secret (envFrom.secretRef)`);
    if (from.configMapRef) Object.assign(env, configMap);
  }
  for (const entry of container.env ?? []) {
    const key = entry.valueFrom?.secretKeyRef?.key;
    if (key !== undefined) {
      secretKeys.push(key);
      if (secret[key] !== undefined) env[entry.name] = secret[key];
    } else if (entry.value !== undefined) env[entry.name] = entry.value;
  }
  return { env, secretKeys };
}

const APPS = ['gateway', 'api-core', 'importer', 'webhook-dispatcher'] as const;
/** Secrets that only these apps may hold. */
const ONLY: Record<string, readonly string[]> = {
  OPERATOR_TOKEN: ['gateway'],
  INTERNAL_SIGNING_KEY: ['gateway', 'api-core'],
  WEBHOOK_SECRET_KEY: ['api-core', 'webhook-dispatcher'],
  ERASURE_HMAC_KEY: ['api-core', 'importer'],
  DATABASE_PASSWORD: ['api-core', 'importer', 'webhook-dispatcher'],
  DATABASE_MIGRATOR_PASSWORD: [],
};

describe('Kubernetes manifests: each app gets the secrets it needs and no other', () => {
  it.each(APPS)('%s: its environment passes the production configuration check', (app) => {
    const { env } = environmentOf(`${app}-deployment.yaml`);
    expect(env.NODE_ENV).toBe('production');
    let problems: string[] = [];
    try {
      loadConfig(app, env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems).toEqual([]);
  });

  it.each(APPS)('%s: holds none of the secrets meant for other apps', (app) => {
    const { secretKeys } = environmentOf(`${app}-deployment.yaml`);
    const misplaced = secretKeys.filter((key) => ONLY[key] !== undefined && !ONLY[key].includes(app));
    expect(misplaced).toEqual([]);
    // Each Redis and NATS password is the app's own.
    for (const key of secretKeys.filter((k) => /^(REDIS|NATS)_.+_PASSWORD$/.test(k))) {
      expect(key).toMatch(new RegExp(`^(REDIS|NATS)_${app.toUpperCase().replace(/-/g, '_')}_PASSWORD$`));
    }
  });

  it('the migrate Job holds the migration role password only', () => {
    expect(environmentOf('migrate-job.yaml').secretKeys).toEqual(['DATABASE_MIGRATOR_PASSWORD']);
  });
});
