import { classifyAddress } from '@dc/webhooks';
import ipaddr from 'ipaddr.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from './service-process';

/**
 * The webhook dispatcher's NetworkPolicy is defence in depth under the code's SSRF rule
 * (libs/webhooks/src/public-address.ts, docs/adr/0020): every IPv6 form the code refuses as a
 * wrapper of other addresses (6to4, Teredo, local-use NAT64) is outside its egress too.
 */
function dispatcherExcepts(): string[] {
  const docs = YAML.parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'deploy/kubernetes/base/network-policies.yaml'), 'utf8')).map((d) => d.toJSON());
  const policy = docs.find((d) => d?.kind === 'NetworkPolicy' && d.metadata?.name === 'webhook-dispatcher');
  if (!policy) throw new Error('no webhook-dispatcher NetworkPolicy');
  return (policy.spec.egress as { to?: { ipBlock?: { except?: string[] } }[] }[]).flatMap((rule) => (rule.to ?? []).flatMap((to) => to.ipBlock?.except ?? []));
}

const excepted = (ip: string) => dispatcherExcepts().some((cidr) => {
  const address = ipaddr.parse(ip);
  const [network, bits] = ipaddr.parseCIDR(cidr);
  return address.kind() === network.kind() && address.match(network, bits);
});

describe('the webhook dispatcher NetworkPolicy', () => {
  it.each([
    ['6to4 of a private IPv4 (10.0.0.1)', '2002:a00:1::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['local-use NAT64 (RFC 8215)', '64:ff9b:1::a00:1'],
    ['NAT64 of a private IPv4', '64:ff9b::a00:1'],
    ['unique local', 'fd00:ec2::254'],
    ['link-local', 'fe80::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ])('refuses %s egress, as the code does', (_what, ip) => {
    expect(classifyAddress(ip).public).toBe(false);
    expect(excepted(ip)).toBe(true);
  });

  it('still lets a public address through', () => {
    expect(classifyAddress('2606:4700::1111').public).toBe(true);
    expect(excepted('2606:4700::1111')).toBe(false);
  });
});
