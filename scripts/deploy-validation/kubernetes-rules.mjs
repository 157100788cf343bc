// The project's own rules for a rendered set of Kubernetes objects (one overlay), beyond the schema:
// what a schema cannot say (a probe that exists, a PDB that selects, an HPA whose target exists)
// and what this system needs (docs/adr/0031, docs/scaling.md).

export const BUDGET_ANNOTATION = 'debt-collection/postgres-connection-budget';

/** Defaults of libs/config/src/config.ts for the variables these rules read. */
const CONFIG_DEFAULTS = { DATABASE_POOL_SIZE: '10', SHUTDOWN_GRACE_MS: '10000', IMPORT_CONCURRENCY: '1' };

/**
 * Postgres sessions an app opens outside its pool, per process: the importer holds up to three per
 * running import (a control session with the import's advisory lock, a COPY session, and for replace
 * and dry runs one that records the rejected rows beside a merge that may roll back; apps/importer).
 */
const OWN_SESSIONS = { importer: (env) => 3 * Number(env.IMPORT_CONCURRENCY) };

const PROBES = {
  startupProbe: '/health/live',
  livenessProbe: '/health/live',
  readinessProbe: '/health/ready',
};

const ref = (o) => `${o.kind}/${o.metadata?.name ?? '(no name)'}`;

/** A pod template's containers' environment as the kubelet builds it: ConfigMaps (envFrom), then `env` values. */
function environment(container, configMaps) {
  const env = { ...CONFIG_DEFAULTS };
  for (const from of container.envFrom ?? []) {
    const data = from.configMapRef ? configMaps.get(from.configMapRef.name)?.data : undefined;
    Object.assign(env, data ?? {});
  }
  for (const entry of container.env ?? []) env[entry.name] = entry.value ?? (entry.valueFrom ? '(from a reference)' : '');
  return env;
}

function selects(selector, labels) {
  const match = selector?.matchLabels ?? {};
  return Object.keys(match).length > 0 && Object.entries(match).every(([k, v]) => labels?.[k] === v);
}

/** "image:tag" or "image@sha256:…"; no tag means latest. */
function imageProblem(image) {
  if (typeof image !== 'string' || image === '') return 'has no image';
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return undefined;
  const tag = /:([^:/]+)$/.exec(image)?.[1];
  if (tag === undefined) return `image "${image}" has no tag (that is latest): name a release version or a digest`;
  if (tag === 'latest') return `image "${image}" uses latest: name a release version or a digest`;
  return undefined;
}

function containerProblems(container) {
  const problems = [];
  const name = `container ${container.name}`;
  const image = imageProblem(container.image);
  if (image) problems.push(`${name} ${image}`);
  for (const side of ['requests', 'limits']) {
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.[side]?.[resource] === undefined) problems.push(`${name} has no resources.${side}.${resource}`);
    }
  }
  const sc = container.securityContext ?? {};
  if (sc.allowPrivilegeEscalation !== false) problems.push(`${name}: securityContext.allowPrivilegeEscalation must be false`);
  if (sc.readOnlyRootFilesystem !== true) problems.push(`${name}: securityContext.readOnlyRootFilesystem must be true`);
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push(`${name}: securityContext.capabilities.drop must include ALL`);
  return problems;
}

/** The port a probe reaches, as a number (a named port resolved against the container's ports). */
function probePort(container, port) {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Health listeners of libs/config when HEALTH_PORT is unset; the gateway answers on PORT. */
const DEFAULT_HEALTH_PORTS = { 'api-core': '3100', importer: '3101', 'webhook-dispatcher': '3102' };

function probeProblems(app, container, env) {
  const problems = [];
  const expected = Number(env.HEALTH_PORT ?? DEFAULT_HEALTH_PORTS[app] ?? env.PORT);
  for (const [probe, path] of Object.entries(PROBES)) {
    const get = container[probe]?.httpGet;
    if (!get) {
      problems.push(`container ${container.name} has no ${probe} (httpGet ${path})`);
      continue;
    }
    if (get.path !== path) problems.push(`container ${container.name}: ${probe} asks ${get.path}, expected ${path}`);
    const port = probePort(container, get.port);
    if (port === undefined) problems.push(`container ${container.name}: ${probe} port "${get.port}" is not one of its ports`);
    else if (Number.isFinite(expected) && port !== expected) problems.push(`container ${container.name}: ${probe} on port ${port}, but the app listens on ${expected}`);
  }
  return problems;
}

function preStopSleepMs(container) {
  const command = container.lifecycle?.preStop?.exec?.command ?? [];
  const seconds = command[0] === 'sleep' ? Number(command[1]) : 0;
  return Number.isFinite(seconds) ? seconds * 1000 : 0;
}

/** Pods a Deployment can run at once: its HPA's maximum (or its replicas), plus the rollout's surge. */
function peakPods(deployment, hpa) {
  const steady = hpa ? hpa.spec.maxReplicas : (deployment.spec.replicas ?? 1);
  const surge = deployment.spec.strategy?.rollingUpdate?.maxSurge ?? '25%';
  const extra = typeof surge === 'string' && surge.endsWith('%') ? Math.ceil((steady * Number(surge.slice(0, -1))) / 100) : Number(surge);
  return steady + (deployment.spec.strategy?.type === 'Recreate' ? 0 : extra);
}

/** Bytes of a Redis memory setting (`512mb`: binary units, as Redis reads them) or a Kubernetes quantity (`768Mi`, `1G`). */
function bytesOf(text) {
  const match = /^(\d+(?:\.\d+)?)([a-zA-Z]*)$/.exec(String(text ?? '').trim());
  const units = { '': 1, k: 1e3, M: 1e6, G: 1e9, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 };
  const unit = match ? units[match[2]] ?? units[match[2].toLowerCase()] : undefined;
  return unit === undefined ? NaN : Number(match[1]) * unit;
}

/**
 * The gateway's Idempotency-Key records (docs/adr/0027, docs/scaling.md): IDEMPOTENCY_REDIS_URL is
 * set (production refuses to start without it), and when it names a Redis of this set, that Redis
 * runs with maxmemory, an LRU policy, and a memory limit at least a quarter above maxmemory (the
 * AOF rewrite's fork, fragmentation, client buffers).
 */
function idempotencyRedisProblems(objects, configMaps, add) {
  const gateway = objects.find((o) => o.kind === 'Deployment' && o.spec?.template?.metadata?.labels?.['app.kubernetes.io/name'] === 'gateway');
  const container = gateway?.spec?.template?.spec?.containers?.[0];
  if (!container) return;
  const url = environment(container, configMaps).IDEMPOTENCY_REDIS_URL;
  if (!url) {
    add(gateway, 'has no IDEMPOTENCY_REDIS_URL: Idempotency-Key records would share the noeviction Redis of the queues (production refuses to start)');
    return;
  }
  let host;
  try {
    host = new URL(url).hostname.split('.')[0];
  } catch {
    add(gateway, `IDEMPOTENCY_REDIS_URL "${url}" is not a URL`);
    return;
  }
  const service = objects.find((o) => o.kind === 'Service' && o.metadata?.name === host);
  if (!service) return; // a Redis outside this set
  for (const workload of objects.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && selects({ matchLabels: service.spec?.selector }, o.spec?.template?.metadata?.labels))) {
    for (const redis of (workload.spec.template.spec.containers ?? []).filter((c) => (c.command ?? c.args ?? [])[0] === 'redis-server')) {
      const values = Object.fromEntries((redis.env ?? []).map((e) => [e.name, e.value]));
      const argv = [...(redis.command ?? []), ...(redis.args ?? [])].map((a) => String(a).replace(/\$\((\w+)\)/g, (_, name) => values[name] ?? ''));
      const flag = (name) => argv[argv.indexOf(`--${name}`) + 1];
      const maxmemory = argv.includes('--maxmemory') ? bytesOf(flag('maxmemory')) : NaN;
      const limit = bytesOf(redis.resources?.limits?.memory);
      if (!(maxmemory > 0)) add(workload, `container ${redis.name} (IDEMPOTENCY_REDIS_URL's Redis) needs --maxmemory (a size such as 512mb): its records are bounded by it`);
      if (!/^(allkeys|volatile)-(lru|lfu)$/.test(flag('maxmemory-policy') ?? '')) {
        add(workload, `container ${redis.name} (IDEMPOTENCY_REDIS_URL's Redis) needs --maxmemory-policy allkeys-lru (or volatile-lru): at its bound it must evict, not refuse writes`);
      }
      if (maxmemory > 0 && !(limit >= 1.25 * maxmemory)) {
        add(workload, `container ${redis.name}: memory limit ${redis.resources?.limits?.memory} must be at least a quarter above --maxmemory ${flag('maxmemory')} (AOF rewrite, fragmentation): it would be OOM-killed first`);
      }
    }
  }
}

/**
 * Every rule over one rendered overlay. Returns [{ where, message }]; `connections` is the
 * Postgres arithmetic (for the report).
 */
export function ruleProblems(objects) {
  const problems = [];
  const add = (o, message) => problems.push({ where: ref(o), message });
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata?.name, o]));
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const statefulSets = objects.filter((o) => o.kind === 'StatefulSet');
  const jobs = objects.filter((o) => o.kind === 'Job');
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');

  const namespaces = objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata?.name);
  for (const o of objects) {
    if (!o.metadata?.name) add(o, 'has no metadata.name');
    if (o.kind !== 'Namespace' && namespaces.length > 0 && !namespaces.includes(o.metadata?.namespace)) {
      add(o, `is in namespace "${o.metadata?.namespace}", not in the one this set creates (${namespaces.join(', ')})`);
    }
  }

  const hpaOf = new Map();
  for (const hpa of hpas) {
    const target = hpa.spec?.scaleTargetRef ?? {};
    const found = objects.find((o) => o.kind === target.kind && o.metadata?.name === target.name && o.metadata?.namespace === hpa.metadata?.namespace);
    if (!found) add(hpa, `scales ${target.kind}/${target.name}, which this set does not contain`);
    else hpaOf.set(found, hpa);
    if (hpa.spec?.minReplicas > hpa.spec?.maxReplicas) add(hpa, `minReplicas ${hpa.spec.minReplicas} is above maxReplicas ${hpa.spec.maxReplicas}`);
  }

  const connections = [];
  for (const d of deployments) {
    const pod = d.spec?.template?.spec ?? {};
    const labels = d.spec?.template?.metadata?.labels ?? {};
    const hpa = hpaOf.get(d);
    if (hpa && d.spec?.replicas !== undefined) add(d, `sets replicas (${d.spec.replicas}) while ${ref(hpa)} owns the count: every apply would reset it`);
    if (!pdbs.some((p) => p.metadata?.namespace === d.metadata?.namespace && selects(p.spec?.selector, labels))) {
      add(d, 'no PodDisruptionBudget selects its pods');
    }
    if (pod.securityContext?.runAsNonRoot !== true) add(d, 'pod securityContext.runAsNonRoot must be true');
    const grace = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    const app = labels['app.kubernetes.io/name'] ?? d.metadata?.name;
    if ((pod.containers ?? []).length === 0) add(d, 'has no containers');
    for (const container of pod.containers ?? []) {
      const env = environment(container, configMaps);
      for (const message of [...containerProblems(container), ...probeProblems(app, container, env)]) add(d, message);
      const needed = Number(env.SHUTDOWN_GRACE_MS) + preStopSleepMs(container);
      if (grace <= needed) {
        add(d, `terminationGracePeriodSeconds (${grace / 1000}) must exceed SHUTDOWN_GRACE_MS plus the preStop pause (${needed / 1000} s): the kubelet would kill it mid-drain`);
      }
      if ('DATABASE_URL' in env) {
        const perPod = Number(env.DATABASE_POOL_SIZE) + (OWN_SESSIONS[app]?.(env) ?? 0);
        const pods = peakPods(d, hpa);
        connections.push({ what: ref(d), pods, perPod, total: pods * perPod });
      }
    }
  }

  // Backing services run here (the idempotency Redis): the same pod rules, their own probes.
  for (const set of statefulSets) {
    const pod = set.spec?.template?.spec ?? {};
    if (!pdbs.some((p) => p.metadata?.namespace === set.metadata?.namespace && selects(p.spec?.selector, set.spec?.template?.metadata?.labels))) {
      add(set, 'no PodDisruptionBudget selects its pods');
    }
    if (pod.securityContext?.runAsNonRoot !== true) add(set, 'pod securityContext.runAsNonRoot must be true');
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) for (const message of containerProblems(container)) add(set, message);
  }
  idempotencyRedisProblems(objects, configMaps, add);

  for (const job of jobs) {
    const spec = job.spec ?? {};
    if (spec.backoffLimit === undefined) add(job, 'has no backoffLimit');
    if (spec.ttlSecondsAfterFinished === undefined) add(job, 'has no ttlSecondsAfterFinished (a finished Job blocks the next apply of a new image)');
    const pod = spec.template?.spec ?? {};
    if (pod.securityContext?.runAsNonRoot !== true) add(job, 'pod securityContext.runAsNonRoot must be true');
    for (const container of pod.containers ?? []) {
      for (const message of containerProblems(container)) add(job, message);
      // scripts/migrate.js holds one connection at a time (the admin one, then the migration one).
      if ('DATABASE_URL' in environment(container, configMaps)) connections.push({ what: ref(job), pods: spec.parallelism ?? 1, perPod: 1, total: spec.parallelism ?? 1 });
    }
  }

  const total = connections.reduce((sum, c) => sum + c.total, 0);
  if (connections.length > 0) {
    const holder = [...configMaps.values()].find((c) => c.metadata?.annotations?.[BUDGET_ANNOTATION] !== undefined);
    const budget = Number(holder?.metadata.annotations[BUDGET_ANNOTATION]);
    const sum = connections.map((c) => `${c.what} ${c.pods}×${c.perPod}`).join(' + ');
    if (!holder) problems.push({ where: 'ConfigMap', message: `no ConfigMap has the ${BUDGET_ANNOTATION} annotation: the Postgres connections (${sum} = ${total}) are unchecked` });
    else if (!Number.isInteger(budget) || budget <= 0) add(holder, `${BUDGET_ANNOTATION} must be a positive integer`);
    else if (total > budget) add(holder, `Postgres connections at peak ${sum} = ${total} exceed ${BUDGET_ANNOTATION} ${budget} (lower maxReplicas/replicas or DATABASE_POOL_SIZE, raise the server's max_connections, or pool with PgBouncer: docs/scaling.md)`);
  }
  return { problems, connections, total };
}
