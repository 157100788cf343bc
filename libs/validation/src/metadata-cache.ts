import { getMetadataStorage, MetadataStorage } from 'class-validator';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

let installed = false;

/**
 * class-validator looks up a class's rules again for every object it validates, and the lookup
 * scans every validated class for ancestors (`MetadataStorage.getTargetValidationMetadatas`): for
 * a 500-debtor batch (about 2,500 objects) it was a fifth of the gateway's validation time
 * (docs/adr/0024). The rules change only when a decorator registers one, at module load, so the
 * lookups (without groups; we use none) and their grouping by property are cached, and the caches
 * dropped whenever a rule is registered. The results are only read by class-validator.
 * Idempotent; call it once before validating.
 */
export function cacheValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage: MetadataStorage = getMetadataStorage();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let lookups = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups?.length) return lookup(target, schema, always, strictGroups, groups);
    const key = `${schema}|${always}|${strictGroups}`;
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    let grouped = groupings.get(metadata);
    if (!grouped) groupings.set(metadata, (grouped = group(metadata)));
    return grouped;
  };
  storage.addValidationMetadata = (metadata) => {
    lookups = new Map();
    groupings = new WeakMap();
    add(metadata);
  };
}
