// The project's rules for docker-compose.yml, read from `docker-compose config` (merge keys and
// defaults resolved as compose resolves them), beyond compose's own schema (docs/adr/0031).

/**
 * Services that run once and exit: no healthcheck (there is nothing left to probe), `restart: "no"`,
 * and whoever depends on them waits for `service_completed_successfully`. Any other service must
 * have a healthcheck.
 */
export const ONE_SHOTS = {
  'redis-acl': 'renders the Redis ACL files into a volume, then exits',
  'minio-init': 'creates the uploads bucket, then exits',
  migrate: 'applies the database migrations, then exits',
};

/**
 * Ports published on every interface, and why: the edge alone faces clients. Every other published
 * port binds 127.0.0.1 (the operator API, MinIO's S3 API for presigned uploads, consoles).
 */
export const PUBLIC_PORTS = { edge: [3000] };

/** libs/config's default, when a service does not set SHUTDOWN_GRACE_MS. */
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** Compose durations ("30s", "1m30s", "500ms") in milliseconds. */
export function durationMs(text) {
  if (typeof text === 'number') return text / 1e6; // compose normalizes to nanoseconds in some versions
  const units = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  let rest = String(text);
  for (const match of rest.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)) {
    total += Number(match[1]) * units[match[2]];
    rest = rest.replace(match[0], '');
  }
  return rest.trim() === '' ? total : Number.NaN;
}

function environmentOf(service) {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => [entry.split('=')[0], entry.split('=').slice(1).join('=')]));
}

/** A published port as `docker-compose config` writes it (a string, or an object), with its host address. */
function publishedPort(port) {
  if (typeof port === 'object' && port !== null) return { hostIp: port.host_ip ?? '', published: Number(port.published) };
  const parts = String(port).replace(/\/\w+$/, '').split(':');
  return parts.length === 3 ? { hostIp: parts[0], published: Number(parts[1]) } : { hostIp: '', published: Number(parts[0]) };
}

/** Every rule over a resolved compose file. Returns [{ where, message }]. */
export function composeProblems(config) {
  const problems = [];
  const services = config?.services ?? {};
  const add = (name, message) => problems.push({ where: `service ${name}`, message });
  const minioRoot = environmentOf(services.minio ?? {}).MINIO_ROOT_USER;
  for (const [name, service] of Object.entries(services)) {
    for (const port of service.ports ?? []) {
      const { hostIp, published } = publishedPort(port);
      if (hostIp !== '127.0.0.1' && !(PUBLIC_PORTS[name] ?? []).includes(published)) {
        add(name, `publishes ${published} on every interface: bind it to 127.0.0.1 (only ${Object.entries(PUBLIC_PORTS).map(([s, p]) => `${s} ${p.join(', ')}`).join('; ')} face clients)`);
      }
    }
    if (minioRoot && environmentOf(service).S3_ACCESS_KEY_ID === minioRoot) {
      add(name, "uses MinIO's root user as S3_ACCESS_KEY_ID: give the apps a user limited to the uploads bucket (minio-init)");
    }
    const oneShot = name in ONE_SHOTS;
    const healthcheck = service.healthcheck;
    const hasHealthcheck = healthcheck !== undefined && healthcheck.disable !== true && healthcheck.test !== undefined;
    if (oneShot) {
      if (service.restart !== 'no') add(name, `is a one-shot (${ONE_SHOTS[name]}): restart must be "no" (got ${JSON.stringify(service.restart)})`);
    } else {
      if (!hasHealthcheck) add(name, 'has no healthcheck (give it one, or list it in ONE_SHOTS with the reason it has none)');
      if (!['unless-stopped', 'always'].includes(service.restart)) add(name, `restart must be unless-stopped or always (got ${JSON.stringify(service.restart)})`);
    }
    const dependsOn = service.depends_on ?? {};
    const entries = Array.isArray(dependsOn) ? dependsOn.map((d) => [d, {}]) : Object.entries(dependsOn);
    for (const [dependency, how] of entries) {
      const expected = dependency in ONE_SHOTS ? 'service_completed_successfully' : 'service_healthy';
      if (!(dependency in services)) add(name, `depends on ${dependency}, which is not a service`);
      else if (how?.condition !== expected) {
        add(name, `depends_on ${dependency} must use condition ${expected} (got ${how?.condition ?? 'none'}): starting is not being ready`);
      }
    }
    // The apps (built here) drain on SIGTERM for SHUTDOWN_GRACE_MS; Docker must wait longer before SIGKILL.
    if (service.build !== undefined && !oneShot) {
      const graceMs = Number(environmentOf(service).SHUTDOWN_GRACE_MS ?? DEFAULT_SHUTDOWN_GRACE_MS);
      const stopMs = service.stop_grace_period === undefined ? 10_000 : durationMs(service.stop_grace_period);
      if (!(stopMs > graceMs)) add(name, `stop_grace_period (${service.stop_grace_period ?? '10s default'}) must exceed SHUTDOWN_GRACE_MS (${graceMs} ms)`);
    }
  }
  return problems;
}
