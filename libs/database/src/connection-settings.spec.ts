import { connectionSettings } from './connection-settings';

describe('connectionSettings (Postgres TLS, docs/adr/0027)', () => {
  it('uses the URL as it is without a CA: pg reads sslmode', () => {
    expect(connectionSettings('postgresql://dc_app:pw@db:5432/dc?sslmode=verify-full')).toEqual({ connectionString: 'postgresql://dc_app:pw@db:5432/dc?sslmode=verify-full' });
  });

  it('verifies the server against the CA, and its host name unless sslmode=verify-ca', () => {
    const full = connectionSettings('postgresql://dc_app:pw@db:5432/dc?sslmode=verify-full&application_name=x', { ca: 'PEM', verifyHostname: true });
    expect(full).toEqual({ connectionString: 'postgresql://dc_app:pw@db:5432/dc?application_name=x', ssl: { ca: 'PEM', rejectUnauthorized: true } });
    const ca = connectionSettings('postgresql://dc_app@db/dc?sslmode=verify-ca', { ca: 'PEM', verifyHostname: false });
    expect(ca.ssl).toMatchObject({ ca: 'PEM', rejectUnauthorized: true, checkServerIdentity: expect.any(Function) });
    expect(connectionSettings('postgresql://dc_app@db/dc?sslmode=disable', { ca: 'PEM', verifyHostname: true })).toEqual({ connectionString: 'postgresql://dc_app@db/dc' });
  });
});
