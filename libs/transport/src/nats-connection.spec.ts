import { natsConnectOptions } from './nats-connection';

describe('natsConnectOptions', () => {
  it('connects to every server of the list (NATS_URL, comma-separated: one NATS cluster)', () => {
    const servers = ['nats://nats-0:4222', 'nats://nats-1:4222', 'nats://nats-2:4222'];
    const options = natsConnectOptions({ servers, subjectPrefix: 'dc' }, 'gateway');
    expect(options.servers).toEqual(servers);
    expect(options.servers).not.toBe(servers); // a copy: nats.js may reorder its own list
  });
});
