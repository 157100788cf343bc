/**
 * The noisy-neighbour suite, long profile (bench/README.md, "noisy-neighbour"): `npm run
 * noisy-neighbour` (build, then this). Tenant B's mix alone, then beside tenant A at the documented
 * limits; prints the tables and writes them to bench/results/noisy-neighbour.md. Exit code 1 when a
 * target is missed. `-- --short` runs the profile of `npm test` (printed, not written).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LONG_NOISY_PROFILE, NoisyNeighbourSuite, noisyNeighbourTable, REPO_ROOT, SHORT_NOISY_PROFILE } from '@dc/testing';

async function main(): Promise<void> {
  const profile = process.argv.includes('--short') ? SHORT_NOISY_PROFILE : LONG_NOISY_PROFILE;
  const started = Date.now();
  const suite = await NoisyNeighbourSuite.start(profile);
  try {
    const result = await suite.run((line) => console.log(line));
    const command = profile.name === 'long' ? 'npm run noisy-neighbour' : 'npm run noisy-neighbour -- --short';
    const text = `Noisy-neighbour suite, ${profile.name} profile: \`${command}\` (${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s)\n\n` +
      `Profile: ${JSON.stringify(profile)}\n\n${noisyNeighbourTable(result)}\n`;
    console.log(text);
    if (profile.name === 'long') writeFileSync(path.join(REPO_ROOT, 'bench/results/noisy-neighbour.md'), text);
    const missed = result.targets.filter((t) => !t.met);
    if (missed.length) console.log(`MISSED: ${missed.map((t) => t.figure).join('; ')}\n${suite.problems()}`);
    process.exitCode = missed.length ? 1 : 0;
  } finally {
    await suite.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
