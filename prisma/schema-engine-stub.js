#!/usr/bin/env node
// Stand-in for Prisma's native schema engine, which cannot be downloaded on air-gapped machines.
// `prisma generate` only asks it for its version; migrations are applied by scripts/migrate.mjs.
// Any other use fails loudly instead of half-working. See docs/adr/0003-sql-migrations.md.
const pkg = require('@prisma/engines-version/package.json');
if (process.argv.includes('--version')) {
  process.stdout.write(`schema-engine-cli ${pkg.prisma.enginesVersion}\n`);
  process.exit(0);
}
process.stderr.write('schema-engine stub: migrations are applied with `npm run db:migrate`, not the Prisma CLI\n');
process.exit(1);
