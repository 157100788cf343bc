import { classifyAddress, nonPublicLabel, withArticle } from './public-address';

describe('classifyAddress', () => {
  it.each([
    // IPv4
    ['127.0.0.1', 'loopback address 127.0.0.1'],
    ['127.255.255.254', 'loopback address 127.255.255.254'],
    ['10.0.0.5', 'private address 10.0.0.5'],
    ['172.16.0.1', 'private address 172.16.0.1'],
    ['172.31.255.255', 'private address 172.31.255.255'],
    ['192.168.1.1', 'private address 192.168.1.1'],
    ['169.254.1.1', 'link-local address 169.254.1.1'],
    ['169.254.169.254', 'cloud metadata address 169.254.169.254'],
    ['169.254.170.2', 'cloud metadata address 169.254.170.2'],
    ['100.64.0.1', 'carrier-grade NAT address 100.64.0.1'],
    ['100.127.255.255', 'carrier-grade NAT address 100.127.255.255'],
    ['100.100.100.200', 'cloud metadata address 100.100.100.200'],
    ['224.0.0.1', 'multicast address 224.0.0.1'],
    ['239.255.255.250', 'multicast address 239.255.255.250'],
    ['0.0.0.0', 'unspecified address 0.0.0.0'],
    ['0.1.2.3', 'this-network address 0.1.2.3'],
    ['255.255.255.255', 'broadcast address 255.255.255.255'],
    ['192.0.2.10', 'documentation address 192.0.2.10'],
    ['198.51.100.7', 'documentation address 198.51.100.7'],
    ['203.0.113.200', 'documentation address 203.0.113.200'],
    ['198.18.0.1', 'benchmarking address 198.18.0.1'],
    ['198.19.255.254', 'benchmarking address 198.19.255.254'],
    ['192.0.0.8', 'IETF protocol assignment address 192.0.0.8'],
    ['192.88.99.1', '6to4 relay anycast address 192.88.99.1'],
    ['240.0.0.1', 'reserved address 240.0.0.1'],
    ['250.1.2.3', 'reserved address 250.1.2.3'],
    // IPv6
    ['::1', 'loopback address ::1'],
    ['::', 'unspecified address ::'],
    ['fc00::1', 'private address (unique local) fc00::1'],
    ['fd12:3456:789a::1', 'private address (unique local) fd12:3456:789a::1'],
    ['fd00:ec2::254', 'cloud metadata address fd00:ec2::254'],
    ['fe80::1', 'link-local address fe80::1'],
    ['fe80::1%eth0', 'link-local address fe80::1%eth0'],
    ['febf::1', 'link-local address febf::1'],
    ['ff02::1', 'multicast address ff02::1'],
    ['2001:db8::1', 'documentation address 2001:db8::1'],
    ['3fff::1', 'documentation address 3fff::1'],
    ['2001:2::1', 'benchmarking address 2001:2::1'],
    ['fec0::1', 'site-local address fec0::1'],
    ['100::1', 'discard-only address 100::1'],
    ['4000::1', 'reserved address 4000::1'],
    // IPv6 forms carrying an IPv4 address
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback address ::ffff:127.0.0.1'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback address ::ffff:7f00:1'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private address ::ffff:10.0.0.1'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata address ::ffff:169.254.169.254'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback address ::ffff:0:7f00:1'],
    ['::127.0.0.1', 'IPv4-compatible loopback address ::127.0.0.1'],
    ['::a00:1', 'IPv4-compatible private address ::a00:1'],
    ['::8.8.8.8', 'deprecated IPv4-compatible address ::8.8.8.8'],
    ['64:ff9b::7f00:1', 'NAT64 loopback address 64:ff9b::7f00:1'],
    ['64:ff9b::10.0.0.1', 'NAT64 private address 64:ff9b::10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 cloud metadata address 64:ff9b::a9fe:a9fe'],
    ['64:ff9b:1::808:808', 'local-use NAT64 address 64:ff9b:1::808:808'],
    ['2002:7f00:1::1', '6to4 loopback address 2002:7f00:1::1'],
    ['2002:c0a8:101::1', '6to4 private address 2002:c0a8:101::1'],
    // RFC 4380's example: server 65.54.227.120 (public), client 192.0.2.45 (inverted in the last 32 bits)
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo documentation address 2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['2001:0:a00:1::f7f7:f7f7', 'Teredo private address 2001:0:a00:1::f7f7:f7f7'],
    ['2001:0:808:808::80ff:fffe', 'Teredo loopback address 2001:0:808:808::80ff:fffe'],
  ])('%s is not public: %s', (ip, reason) => {
    expect(classifyAddress(ip)).toEqual({ public: false, reason });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.175.48.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:830::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:808:808::f7f7:f7f7',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toEqual({ public: true });
  });

  it.each(['', 'localhost', 'example.com', '127.1', '0x7f.0.0.1', '2130706433', ' 8.8.8.8', '8.8.8.8 ', '[::1]', '1.2.3.256', '::ffff:1.2.3', 'fe80::1::2'])(
    '%j is not an IP address',
    (value) => {
      expect(classifyAddress(value)).toEqual({ public: false, reason: 'not an IP address' });
    },
  );
});

describe('nonPublicLabel and withArticle', () => {
  it('name the class for sentences', () => {
    expect(nonPublicLabel('8.8.8.8')).toBeNull();
    expect(withArticle(nonPublicLabel('10.0.0.1')!)).toBe('a private address');
    expect(withArticle(nonPublicLabel('::')!)).toBe('an unspecified address');
    expect(withArticle(nonPublicLabel('::ffff:127.0.0.1')!)).toBe('an IPv4-mapped loopback address');
  });
});
