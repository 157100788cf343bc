// Each rendered object against the Kubernetes OpenAPI schema of its apiVersion and kind, with the
// validators kubernetes-models generates from the upstream OpenAPI document (types, required fields,
// formats such as quantities). An object whose kind has no model fails: a typo in `kind` or
// `apiVersion`, or a custom resource, is never passed unchecked.

const IDENTIFIER = { group: /^[a-z0-9]+(\.[a-z0-9-]+)*$/, version: /^v\d+((alpha|beta)\d+)?$/, kind: /^[A-Z][A-Za-z0-9]*$/ };

/** kubernetes-models' module path for apiVersion + kind: `v1/ConfigMap`, `apps/v1/Deployment`. */
function modelPath(apiVersion, kind) {
  const parts = String(apiVersion ?? '').split('/');
  const [group, version] = parts.length === 1 ? [undefined, parts[0]] : parts;
  if (parts.length > 2 || (group !== undefined && !IDENTIFIER.group.test(group)) || !IDENTIFIER.version.test(version ?? '') || !IDENTIFIER.kind.test(String(kind ?? ''))) {
    return undefined;
  }
  return group === undefined ? `kubernetes-models/${version}/${kind}` : `kubernetes-models/${group}/${version}/${kind}`;
}

const models = new Map();

async function modelOf(apiVersion, kind) {
  const key = `${apiVersion} ${kind}`;
  if (!models.has(key)) {
    const where = modelPath(apiVersion, kind);
    let model;
    if (where) {
      try {
        model = (await import(where))[kind];
      } catch (err) {
        if (err?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED' && err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
      }
    }
    models.set(key, model);
  }
  return models.get(key);
}

/** Schema problems of one object, as "path message" strings (none: valid). */
export async function schemaProblems(object) {
  const Model = await modelOf(object.apiVersion, object.kind);
  if (!Model) return [`no Kubernetes schema for apiVersion "${object.apiVersion}" kind "${object.kind}" (not a built-in kind of kubernetes-models)`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    if (!Array.isArray(err?.errors)) throw err;
    return err.errors.map((e) => `${e.instancePath || '/'} ${e.message}`);
  }
}
