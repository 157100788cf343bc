import { promises as dns } from 'node:dns';

/** Every A/AAAA address of a hostname. */
export type LookupAll = (hostname: string) => Promise<string[]>;

/**
 * dns.promises.lookup(hostname, { all: true, verbatim: true }): the system resolver, so /etc/hosts
 * counts ('localhost' resolves) and the addresses come in the resolver's order.
 */
export const systemLookup: LookupAll = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};
