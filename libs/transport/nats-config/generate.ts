import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NATS_CONF_FILES, renderNatsConf } from '../src/nats-permissions';

/**
 * Writes the NATS configurations rendered from the RPC contract registry (`npm run nats:config`):
 * docker/nats.conf (the compose NATS) and deploy/kubernetes/nats/nats-auth.conf (the authorization
 * block for the operator's NATS), or with `--check` fails when a committed one differs
 * (libs/transport/src/nats-permissions.spec.ts checks the same in the unit tests).
 * `--prefix <p>` prints the authorization block for another NATS_SUBJECT_PREFIX instead.
 */
// Compiled to dist/libs/transport/nats-config/generate.js: four levels below the repository root.
const ROOT = path.resolve(__dirname, '../../../..');

function main(): void {
  const prefixAt = process.argv.indexOf('--prefix');
  if (prefixAt > 0) {
    process.stdout.write(renderNatsConf({ subjectPrefix: process.argv[prefixAt + 1] ?? '', mode: 'authorization' }));
    return;
  }
  const check = process.argv.includes('--check');
  let stale = false;
  for (const file of NATS_CONF_FILES) {
    const target = path.join(ROOT, file.path);
    const text = file.render();
    if (check) {
      if (readFileSync(target, 'utf8') !== text) {
        process.stderr.write(`${file.path} is out of date with the RPC contract registry: run \`npm run nats:config\` and commit it.\n`);
        stale = true;
      }
      continue;
    }
    writeFileSync(target, text);
    process.stdout.write(`wrote ${file.path}\n`);
  }
  if (stale) process.exit(1);
}

main();
