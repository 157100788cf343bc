import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './service-process';

/**
 * `npm run deploy:validate` (scripts/validate-deploy.mjs, docs/adr/0031) passes on the repository's
 * compose file, Kubernetes base and overlays — and fails, naming the object and the problem, on
 * files that break the schema or the project's rules.
 */
const SCRIPT = path.join(REPO_ROOT, 'scripts/validate-deploy.mjs');
// Each run renders with docker-compose and kubectl (seconds each on a loaded machine).
jest.setTimeout(120_000);

function validate(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, encoding: 'utf8', env, timeout: 120_000 });
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  return { status: result.status, stdout: result.stdout, problems: lines.filter((l) => !l.startsWith('deploy:validate: ')), verdict: lines.filter((l) => l.startsWith('deploy:validate: ')) };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'deploy-validate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The services that run once and exit, so have no healthcheck, and why. */
const ONE_SHOTS = {
  migrate: 'applies the database migrations, then exits',
  'minio-init': 'creates the uploads bucket, then exits',
  'redis-acl': 'renders the Redis ACL files into a volume, then exits',
};

describe('deploy:validate', () => {
  it('passes on docker-compose.yml, the Kubernetes base and every overlay, and leaves no .env behind', () => {
    const hadEnv = existsSync(path.join(REPO_ROOT, '.env'));
    const { status, stdout, problems } = validate([]);
    expect(problems).toEqual([]);
    expect(status).toBe(0);
    expect(stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual([
      'ok   docker-compose.yml',
      'ok   deploy/kubernetes/base',
      'ok   deploy/kubernetes/overlays/dev',
      'ok   deploy/kubernetes/overlays/production',
    ]);
    // Every service has a healthcheck except these one-shots; the replicas and observability profiles are included.
    expect(stdout).toMatch(new RegExp(`\\d+ services \\(profiles: replicas, observability\\), one-shots without healthcheck: ${Object.keys(ONE_SHOTS).join(', ')}\n`));
    // The connection arithmetic of docs/scaling.md.
    expect(stdout).toContain(
      'deploy/kubernetes/base: 26 objects, Postgres connections at peak 180 (Deployment/api-core 11×10, Deployment/importer 3×13, Deployment/webhook-dispatcher 3×10, Job/debt-collection-migrate 1×1)',
    );
    expect(existsSync(path.join(REPO_ROOT, '.env'))).toBe(hadEnv);
  });

  it('names each schema violation, an unknown kind and an HPA without its target', () => {
    const file = path.join(dir, 'broken.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: { name: broken, namespace: dc }',
        'spec:',
        '  replicas: "two"',
        '  selector: { matchLabels: { app: broken } }',
        '  template:',
        '    metadata: { labels: { app: broken } }',
        '    spec: {}',
        '---',
        'apiVersion: apps/v1',
        'kind: Deploymnet',
        'metadata: { name: typo, namespace: dc }',
        '---',
        'apiVersion: autoscaling/v2',
        'kind: HorizontalPodAutoscaler',
        'metadata: { name: gone, namespace: dc }',
        'spec:',
        '  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: missing }',
        '  maxReplicas: 3',
      ].join('\n'),
    );
    const { status, problems } = validate(['--manifests', file]);
    expect(status).toBe(1);
    const source = file;
    expect(problems).toEqual([
      `${source}: Deployment/broken: /spec/replicas must be integer`,
      `${source}: Deployment/broken: /spec/template/spec must have required property containers`,
      `${source}: Deploymnet/typo: no Kubernetes schema for apiVersion "apps/v1" kind "Deploymnet" (not a built-in kind of kubernetes-models)`,
      `${source}: HorizontalPodAutoscaler/gone: scales Deployment/missing, which this set does not contain`,
      `${source}: Deployment/broken: no PodDisruptionBudget selects its pods`,
      `${source}: Deployment/broken: pod securityContext.runAsNonRoot must be true`,
      `${source}: Deployment/broken: has no containers`,
    ]);
  });

  it('renders an overlay of the real base and refuses a missing probe, a short grace period, a latest tag, a blown connection budget and an unbounded idempotency Redis', () => {
    const overlay = path.join(dir, 'overlay');
    const base = path.relative(overlay, path.join(REPO_ROOT, 'deploy/kubernetes/base'));
    mkdirSync(overlay);
    writeFileSync(
      path.join(overlay, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${base}`,
        'images:',
        '  - name: debt-collection-importer',
        '    newTag: latest',
        'patches:',
        '  - target: { kind: Deployment, name: gateway }',
        '    patch: |-',
        '      - { op: remove, path: /spec/template/spec/containers/0/readinessProbe }',
        '      - { op: replace, path: /spec/template/spec/terminationGracePeriodSeconds, value: 12 }',
        '  - target: { kind: HorizontalPodAutoscaler, name: api-core }',
        '    patch: |-',
        '      - { op: replace, path: /spec/maxReplicas, value: 40 }',
        '  - target: { kind: StatefulSet, name: redis-idempotency }',
        '    patch: |-',
        '      - { op: replace, path: /spec/template/spec/containers/0/command/8, value: noeviction }',
        '      - { op: replace, path: /spec/template/spec/containers/0/resources/limits/memory, value: 600Mi }',
      ].join('\n'),
    );
    const { status, problems } = validate(['--kustomize', overlay]);
    expect(status).toBe(1);
    expect(problems).toEqual([
      `${overlay}: Deployment/gateway: container gateway has no readinessProbe (httpGet /health/ready)`,
      `${overlay}: Deployment/gateway: terminationGracePeriodSeconds (12) must exceed SHUTDOWN_GRACE_MS plus the preStop pause (15 s): the kubelet would kill it mid-drain`,
      `${overlay}: Deployment/importer: container importer image "debt-collection-importer:latest" uses latest: name a release version or a digest`,
      `${overlay}: StatefulSet/redis-idempotency: container redis (IDEMPOTENCY_REDIS_URL's Redis) needs --maxmemory-policy allkeys-lru (or volatile-lru): at its bound it must evict, not refuse writes`,
      `${overlay}: StatefulSet/redis-idempotency: container redis: memory limit 600Mi must be at least a quarter above --maxmemory 512mb (AOF rewrite, fragmentation): it would be OOM-killed first`,
      `${overlay}: ConfigMap/debt-collection-config: Postgres connections at peak Deployment/api-core 41×10 + Deployment/importer 3×13 + Deployment/webhook-dispatcher 3×10 + Job/debt-collection-migrate 1×1 = 480 exceed debt-collection/postgres-connection-budget 190 (lower maxReplicas/replicas or DATABASE_POOL_SIZE, raise the server's max_connections, or pool with PgBouncer: docs/scaling.md)`,
    ]);
  });

  it('refuses a compose file whose services start before their dependencies are ready, lack a healthcheck or are killed mid-drain', () => {
    const file = path.join(dir, 'docker-compose.yml');
    writeFileSync(
      file,
      [
        'services:',
        '  web:',
        '    image: nginx:1.27-alpine',
        '    restart: unless-stopped',
        '    depends_on: [db]',
        '  db:',
        '    image: postgres:15',
        '    restart: unless-stopped',
        '    healthcheck: { test: ["CMD", "pg_isready"] }',
        '  app:',
        '    build: .',
        '    image: app:local',
        '    restart: unless-stopped',
        '    stop_grace_period: 10s',
        '    healthcheck: { test: ["CMD", "true"] }',
        '    depends_on:',
        '      migrate: { condition: service_healthy }',
        '  migrate:',
        '    image: app:local',
        '    restart: on-failure',
      ].join('\n'),
    );
    const { status, problems } = validate(['--compose', file]);
    expect(status).toBe(1);
    // In the order of `docker-compose config` (services by name).
    expect(problems).toEqual([
      `${file}: service app: depends_on migrate must use condition service_completed_successfully (got service_healthy): starting is not being ready`,
      `${file}: service app: stop_grace_period (10s) must exceed SHUTDOWN_GRACE_MS (10000 ms)`,
      `${file}: service migrate: is a one-shot (applies the database migrations, then exits): restart must be "no" (got "on-failure")`,
      // The short form `depends_on: [db]` is compose's service_started.
      `${file}: service web: has no healthcheck (give it one, or list it in ONE_SHOTS with the reason it has none)`,
      `${file}: service web: depends_on db must use condition service_healthy (got service_started): starting is not being ready`,
    ]);
  });

  it("refuses a compose file that publishes a port other than the edge's on every interface, or gives the apps MinIO's root user", () => {
    const file = path.join(dir, 'docker-compose.yml');
    writeFileSync(
      file,
      [
        'services:',
        '  edge:',
        '    image: nginx:1.27-alpine',
        '    restart: unless-stopped',
        '    healthcheck: { test: ["CMD", "true"] }',
        '    ports: ["3000:3000", "127.0.0.1:3001:3001"]',
        '  minio:',
        '    image: minio/minio:latest',
        '    restart: unless-stopped',
        '    healthcheck: { test: ["CMD", "true"] }',
        '    environment: { MINIO_ROOT_USER: root-user, MINIO_ROOT_PASSWORD: root-password }',
        '    ports: ["9000:9000", "127.0.0.1:9001:9001"]',
        '  importer:',
        '    image: app:local',
        '    restart: unless-stopped',
        '    healthcheck: { test: ["CMD", "true"] }',
        '    environment: { S3_ACCESS_KEY_ID: root-user, S3_SECRET_ACCESS_KEY: root-password }',
      ].join('\n'),
    );
    const { status, problems } = validate(['--compose', file]);
    expect(status).toBe(1);
    expect(problems).toEqual([
      `${file}: service importer: uses MinIO's root user as S3_ACCESS_KEY_ID: give the apps a user limited to the uploads bucket (minio-init)`,
      `${file}: service minio: publishes 9000 on every interface: bind it to 127.0.0.1 (only edge 3000 face clients)`,
    ]);
  });

  it('says what is missing when neither kustomize nor kubectl is installed', () => {
    const { status, verdict } = validate(['--kustomize', 'deploy/kubernetes/base'], { ...process.env, PATH: dir, KUSTOMIZE: '' });
    expect(status).toBe(2);
    expect(verdict).toEqual([
      'deploy:validate: neither kustomize nor kubectl is installed: the Kubernetes manifests are rendered with `kustomize build` or `kubectl kustomize` (install kubectl, or set KUSTOMIZE to a kustomize binary)',
    ]);
  });
});
