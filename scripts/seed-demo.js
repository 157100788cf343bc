#!/usr/bin/env node
// Creates a demo organization with portfolios, 20 debtors with debts, a campaign, a call, a promise
// and a payment, and a read+write API key — through the operator and public APIs of a running system (`npm run start:all` or docker compose), then prints the key and a few
// curl commands. Safe to run more than once: each run makes a new organization.
// `npm run start:all` calls `seedDemo()` once the services are ready (and reuses the key it saved).
require('dotenv/config');

const operatorUrl = process.env.OPERATOR_URL ?? `http://localhost:${process.env.OPERATOR_PORT ?? 3001}`;
const publicUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
const token = process.env.OPERATOR_TOKEN ?? 'dev-operator-token';

async function operator(method, path, body) {
  const res = await fetch(`${operatorUrl}/operator/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

async function api(key, method, path, body) {
  const res = await fetch(`${publicUrl}/public/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

const FIRST = ['Ana', 'Luis', 'Marta', 'Jorge', 'Lucía', 'Pablo', 'Elena', 'Diego', 'Sara', 'Iván'];
const LAST = ['García', 'Martínez', 'López', 'Sánchez', 'Pérez', 'Gómez', 'Ruiz', 'Díaz', 'Moreno', 'Álvarez'];

/** 20 debtors with one or two debts each, through the public batch endpoint. */
function demoDebtors() {
  return Array.from({ length: 20 }, (_, i) => ({
    externalId: `DEMO-${String(i + 1).padStart(3, '0')}`,
    identityFirstName: FIRST[i % 10],
    identityLastName: LAST[(i * 3) % 10],
    identityDocumentType: 'national_id',
    identityDocumentNumber: `${10000000 + i * 7919}X`,
    contactInfoAddressCity: 'Madrid',
    contactInfoAddressCountry: 'ES',
    contactInfoPhoneNumbers: [{ phone: `+34 600 ${String(100000 + i * 37).slice(0, 3)} ${String(100 + i).slice(-3)}`, primary: true, type: 'mobile' }],
    contactInfoEmails: [{ address: `debtor${i + 1}@example.com`, primary: true, type: 'personal' }],
    debts: Array.from({ length: (i % 2) + 1 }, (_, j) => ({
      externalId: `LOAN-${i + 1}-${j + 1}`,
      totalAmount: 250 + i * 40 + j * 15,
      paidAmount: i % 5 === 0 ? 250 + i * 40 + j * 15 : i * 5,
      currency: 'EUR',
      dueDate: `2026-0${(i % 9) + 1}-15`,
      description: 'Consumer loan instalments',
    })),
  }));
}

/** Seeds the demo organization; prints and returns its API key. */
async function seedDemo() {
  const org = await operator('POST', '/organizations', { name: 'Demo Collections' });
  const portfolio = await operator('POST', `/organizations/${org.id}/portfolios`, {
    identityName: 'Consumer loans (demo)',
    identityCurrency: ['EUR', 'USD'],
    identityRegion: 'ES',
    identityTimezone: 'Europe/Madrid',
    identityDescription: 'Demo portfolio created by npm run seed:demo',
    identityDebtType: 'consumer_loan',
  });
  const extra = await operator('POST', `/organizations/${org.id}/portfolios`, {
    identityName: 'Credit cards (demo)',
    identityCurrency: ['EUR'],
  });
  const key = await operator('POST', `/organizations/${org.id}/api-keys`, { name: 'demo', scopes: ['read', 'write'] });

  const batch = await api(key.key, 'POST', `/portfolios/${portfolio.id}/debtors`, { debtors: demoDebtors() });
  const [first, second] = batch.results;
  const campaign = await operator('POST', `/portfolios/${portfolio.id}/campaigns`, { name: 'Spring reminders' });
  const call = await operator('POST', `/portfolios/${portfolio.id}/calls`, {
    debtorId: first.id,
    campaignId: campaign.id,
    direction: 'outbound',
    status: 'completed',
    fromNumber: '+34910000000',
    toNumber: '+34600100101',
    connectedAt: new Date().toISOString(),
    effectiveDurationSec: 95,
    analysis: { summary: 'Debtor agreed to pay next week.', sentiment: 0.4, disposition: 'promise_to_pay', outcomes: ['promise'] },
  });
  await operator('POST', `/portfolios/${portfolio.id}/promises`, {
    debtorId: first.id,
    debtId: first.debts[0].id,
    callId: call.id,
    amount: 120,
    promiseDate: new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10),
  });
  await api(key.key, 'POST', '/payments', {
    portfolioId: portfolio.id,
    debtorId: second.id,
    debtId: second.debts[0].id,
    externalId: 'DEMO-PAYMENT-1',
    amount: 50,
    paymentDate: new Date().toISOString().slice(0, 10),
    method: 'card',
  });
  console.log(`Organization ${org.id}, portfolios ${portfolio.id} and ${extra.id}.`);
  console.log(`Created ${batch.summary.created} debtors with debts, a campaign, a completed call, a promise and a payment.`);
  console.log(`\nAPI key (shown once):\n  ${key.key}\n\nTry:`);
  console.log(`  curl -s ${publicUrl}/public/v1/me -H "Authorization: Bearer ${key.key}"`);
  console.log(`  curl -s ${publicUrl}/public/v1/portfolios -H "Authorization: Bearer ${key.key}"`);
  console.log(`  curl -s "${publicUrl}/public/v1/debtors?limit=5" -H "Authorization: Bearer ${key.key}"`);
  console.log(`  curl -s ${publicUrl}/public/v1/calls/${call.id} -H "Authorization: Bearer ${key.key}"`);
  console.log(`\nAPI reference: ${publicUrl}/docs`);
  return { key: key.key, organizationId: org.id, portfolioId: portfolio.id };
}

module.exports = { seedDemo, publicUrl, operatorUrl };

if (require.main === module) {
  seedDemo().catch((err) => {
    console.error(`seed:demo failed: ${err.message}\nIs the system running (npm run start:all)?`);
    process.exit(1);
  });
}
