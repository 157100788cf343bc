import { operatorRpc, publicRpc, RPC_CONTRACTS } from '@dc/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NATS_CONF_FILES, natsInboxPrefix, natsPasswordVariable, natsPermissions, renderNatsConf } from './nats-permissions';

const ROOT = path.resolve(__dirname, '../../..');

describe('natsPermissions', () => {
  const contracts = [publicRpc('debtors.list'), operatorRpc('operator.api-keys.create'), operatorRpc('auth.verify-key')];

  it('gateway: publishes exactly the patterns it calls; reads only its own inbox and auth.invalidate', () => {
    expect(natsPermissions('dc', contracts).gateway).toEqual({
      publish: ['dc.debtors.list', 'dc.operator.api-keys.create', 'dc.auth.verify-key'],
      subscribe: ['_INBOX_gateway.dc.>', 'dc.auth.invalidate'],
      allowResponses: false,
    });
  });

  it('api-core: subscribes to the patterns in its queue group only; publishes only answers and auth.invalidate', () => {
    expect(natsPermissions('acme.prod', contracts)['api-core']).toEqual({
      publish: ['acme.prod.auth.invalidate'],
      subscribe: ['acme.prod.debtors.list api-core', 'acme.prod.operator.api-keys.create api-core', 'acme.prod.auth.verify-key api-core'],
      allowResponses: true,
    });
  });

  it('covers every pattern of the registry, and nothing else is publishable by the gateway', () => {
    const { gateway } = natsPermissions('dc');
    expect(gateway.publish).toHaveLength(RPC_CONTRACTS.length);
    expect(new Set(gateway.publish)).toEqual(new Set(RPC_CONTRACTS.map((c) => `dc.${c.pattern}`)));
    expect(gateway.publish.some((s) => s.includes('*') || s.includes('>'))).toBe(false);
  });

  it('inbox prefixes are per service and per deployment, outside _INBOX.>', () => {
    expect(natsInboxPrefix('gateway', 'dc')).toBe('_INBOX_gateway.dc');
    expect(natsInboxPrefix('api-core', 't1')).toBe('_INBOX_api_core.t1');
    expect(natsPasswordVariable('api-core')).toBe('NATS_API_CORE_PASSWORD');
  });
});

describe('renderNatsConf', () => {
  it('one user per service, passwords as environment references, allow_responses for api-core only', () => {
    const text = renderNatsConf({ subjectPrefix: 'dc', mode: 'server', contracts: [publicRpc('debtors.list')] });
    expect(text).toContain('max_payload: 8MB');
    expect(text).toContain('http_port: 8222');
    expect(text).toMatch(/jetstream \{\n {2}store_dir: \/data\n\}/);
    expect(text).toContain('user: "gateway"\n      password: $NATS_GATEWAY_PASSWORD\n');
    expect(text).toContain('user: "api-core"\n      password: $NATS_API_CORE_PASSWORD\n');
    expect(text.match(/allow_responses: true/g)).toHaveLength(1);
    expect(text).toContain('"dc.debtors.list api-core"');
  });

  it('the authorization-only block has no listeners', () => {
    const text = renderNatsConf({ subjectPrefix: 'dc', mode: 'authorization' });
    expect(text).not.toContain('port:');
    expect(text).toContain('authorization {');
  });

  it('refuses a prefix that is not subject tokens', () => {
    expect(() => renderNatsConf({ subjectPrefix: 'dc.>', mode: 'server' })).toThrow('not a subject prefix');
    expect(() => renderNatsConf({ subjectPrefix: '', mode: 'server' })).toThrow('not a subject prefix');
  });

  it.each(NATS_CONF_FILES.map((f) => [f.path, f]))('the committed %s is the rendering of the registry (npm run nats:config)', (_path, file) => {
    expect(readFileSync(path.join(ROOT, file.path), 'utf8')).toBe(file.render());
  });
});
