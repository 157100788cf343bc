import { dropDatabase } from './test-database';

export default async function globalTeardown(): Promise<void> {
  if (process.env.DC_TEST_TEMPLATE) await dropDatabase(process.env.DC_TEST_TEMPLATE);
}
