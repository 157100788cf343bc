import 'dotenv/config';
import path from 'node:path';
import { defineConfig } from 'prisma/config';

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(__dirname, 'prisma', 'schema-engine-stub.js');

// The CLI is used only for `prisma generate` (the client). Migrations are plain SQL applied by
// scripts/migrate.mjs, so no native schema engine has to be downloaded (docs/adr/0003).
export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/debt_collection' },
});
