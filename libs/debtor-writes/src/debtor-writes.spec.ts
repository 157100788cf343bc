import { ErasureTombstones } from '@dc/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  batchLockStatements, DEBT_FIELDS, debtStatusSql, DEBTOR_FIELDS, deleteEmailsSql, deleteUnlistedPhonesSql, erasedAmong, importLockSql,
  insertDebtorsSql, insertDebtsSql, MAX_KEY_LOCKS, optOutBegins, optOutThroughImport, OPT_OUT_THROUGH_BATCH, Params, recordOptOutStatements,
  setLocalSql, tombstonesStatement, unnestRows, updateDebtorsSql, updateDebtsSql, writePhonesSql,
} from './index';

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('debtor write rules', () => {
  describe('debtors', () => {
    it('absent compliance flags take the column defaults of the migration', () => {
      const migration = readFileSync(path.join(__dirname, '../../../prisma/migrations/20261122000000_init/migration.sql'), 'utf8');
      const table = migration.slice(migration.indexOf('CREATE TABLE debtors'), migration.indexOf(');', migration.indexOf('CREATE TABLE debtors')));
      for (const f of DEBTOR_FIELDS) {
        const declared = new RegExp(`\\b${f.column}\\s+\\w+(?: NOT NULL)?(?: DEFAULT (\\w+))?`).exec(table);
        expect([f.column, declared?.[1]]).toEqual([f.column, 'absent' in f ? f.absent : undefined]);
      }
      const text = squash(insertDebtorsSql('src AS u', '$1'));
      expect(text).toContain('COALESCE(u.oo, false), COALESCE(u.cc, true), COALESCE(u.cw, false), COALESCE(u.ce, true), COALESCE(u.cs, true)');
      expect(text).toMatch(/^INSERT INTO debtors \(id, portfolio_id, external_id, identity_first_name, /);
      expect(text).toContain('SELECT u.id, $1, u.ext, u.fn, u.dt, u.dn, u.ln');
    });

    it('an update overwrites the required identity fields, keeps an absent optional one, never writes status, priority or the external id', () => {
      const text = squash(updateDebtorsSql('src AS u', { unchanged: 'rewrite' }));
      expect(text).toContain('identity_first_name = u.fn, identity_document_type = u.dt, identity_document_number = u.dn,');
      expect(text).toContain('identity_last_name = COALESCE(u.ln, d.identity_last_name)');
      expect(text).toContain('compliance_opt_out = COALESCE(u.oo, d.compliance_opt_out)');
      expect(text).toContain('updated_at = now()');
      expect(text).not.toMatch(/\b(status|priority|external_id) =/);
      expect(text).toMatch(/WHERE d\.id = u\.id$/);
    });

    it('unchanged rows: rewritten, or skipped with one guard over every assignment; ids named for the index when given', () => {
      expect(squash(updateDebtorsSql('src AS u', { unchanged: 'rewrite', ids: '$9::text[]' }))).toMatch(/WHERE d\.id = u\.id AND d\.id = ANY\(\$9::text\[\]\)$/);
      const skip = squash(updateDebtorsSql('src AS u', { unchanged: 'skip' }));
      expect(skip).toContain(`AND (${DEBTOR_FIELDS.map((f) => `d.${f.column}`).join(', ')}) IS DISTINCT FROM (u.fn, u.dt, u.dn, COALESCE(u.ln, d.identity_last_name),`);
    });

    it('an opt-out begins when true is sent for a debtor not opted out (a new one is not)', () => {
      expect(optOutBegins(true, undefined)).toBe(true);
      expect(optOutBegins(true, false)).toBe(true);
      expect(optOutBegins(true, true)).toBe(false);
      for (const sent of [false, null, undefined]) {
        expect(optOutBegins(sent, false)).toBe(false);
        expect(optOutBegins(sent, undefined)).toBe(false);
      }
    });
  });

  describe('debts', () => {
    it('status is derived from the amounts; an update keeps cancelled', () => {
      expect(debtStatusSql()).toBe("CASE WHEN u.paid = u.total THEN 'paid' ELSE 'active' END");
      expect(debtStatusSql('t')).toBe("CASE WHEN t.status = 'cancelled' THEN 'cancelled' WHEN u.paid = u.total THEN 'paid' ELSE 'active' END");
      expect(squash(insertDebtsSql('src AS u', '$4'))).toContain(`SELECT u.id, $4, u.debtor_id, u.ext, u.cur, ${debtStatusSql()}, u.total, u.paid, u.due`);
    });

    it('an update overwrites the amounts, keeps absent texts, never changes the currency or the external id', () => {
      const text = squash(updateDebtsSql('src AS u', { unchanged: 'skip' }));
      expect(text).toContain('total_amount = u.total, paid_amount = u.paid, due_date = COALESCE(u.due, t.due_date)');
      expect(text).toContain(`status = ${debtStatusSql('t')}`);
      expect(text).not.toMatch(/\b(currency|external_id|debtor_id) =/);
      expect(text).toContain(`(${[...DEBT_FIELDS.map((f) => `t.${f.column}`), 't.status'].join(', ')}) IS DISTINCT FROM`);
    });
  });

  describe('phones and emails', () => {
    it('a known number keeps what was learned; its owner changes only when one was sent', () => {
      const text = squash(writePhonesSql('src AS u', { origin: 'api', known: 'upsert', unchanged: 'rewrite' }));
      expect(text).toContain("u.type, 'api', COALESCE(u.owner, 'unknown'), CASE WHEN u.owner IS NULL THEN 'default' ELSE 'client' END");
      expect(text).toContain('ON CONFLICT (debtor_id, phone_e164) DO UPDATE SET phone = EXCLUDED.phone, position = EXCLUDED.position, "primary" = EXCLUDED."primary",');
      expect(text).toContain("owner = CASE WHEN EXCLUDED.owner_source = 'client' THEN EXCLUDED.owner ELSE ph.owner END");
      expect(text).not.toMatch(/\b(type|origin|verified|verification_status) = /);
      expect(text).not.toContain('IS DISTINCT FROM');
      expect(squash(writePhonesSql('src AS u', { origin: 'import', known: 'upsert', unchanged: 'skip' }))).toMatch(/WHERE \(ph\.phone, ph\.position, ph\."primary", ph\.owner, ph\.owner_source\) IS DISTINCT FROM \(EXCLUDED\.phone, /);
      const fresh = squash(writePhonesSql('src AS u', { origin: 'import', known: 'insert', unchanged: 'skip' }));
      expect(fresh).toContain("'import'");
      expect(fresh).not.toContain('ON CONFLICT');
    });

    it('a sent list is the full authority: unlisted numbers go, the emails are replaced', () => {
      expect(squash(deleteUnlistedPhonesSql({ where: 'ph.debtor_id = ANY($1)', unlisted: 'NOT EXISTS (x)' }))).toBe('DELETE FROM debtor_phones AS ph WHERE ph.debtor_id = ANY($1) AND NOT EXISTS (x)');
      expect(squash(deleteEmailsSql({ using: 'plan p', where: 'e.debtor_id = p.debtor_id' }))).toBe('DELETE FROM debtor_emails AS e USING plan p WHERE e.debtor_id = p.debtor_id');
    });
  });

  describe('opt-out side effects', () => {
    it('a note, a timeline entry and the pending messages cancelled: three statements whatever the number of debtors', () => {
      let n = 0;
      const statements = recordOptOutStatements(['dbt_a', 'dbt_b'], OPT_OUT_THROUGH_BATCH, (prefix) => `${prefix}_${(n += 1)}`);
      expect(statements).toHaveLength(3);
      expect(statements[0].values).toEqual([['note_1', 'note_2'], ['dbt_a', 'dbt_b'], OPT_OUT_THROUGH_BATCH.note]);
      expect(statements[1].values).toEqual([['tle_3', 'tle_4'], ['dbt_a', 'dbt_b'], '{"source":"debtor_batch"}']);
      expect(squash(statements[2].text)).toBe(
        "UPDATE debtor_pending_messages SET status = 'cancelled', cancelled_at = now(), cancel_reason = 'opt_out' WHERE debtor_id = ANY($1::text[]) AND status = 'pending'",
      );
      const imported = recordOptOutStatements(['dbt_a'], optOutThroughImport('imp_1'), (prefix) => prefix);
      expect(imported.map((s) => s.text)).toEqual(statements.map((s) => s.text));
      expect(JSON.parse(imported[1].values[2] as string)).toEqual({ source: 'import', importId: 'imp_1' });
    });
  });

  describe('locks and settings', () => {
    it('a small batch: the portfolio shared, then each key once, sorted in SQL; a large one: the portfolio exclusive', () => {
      const small = batchLockStatements('pf_1', ['a', 'b', 'a'], ['d1']);
      expect(small.map((s) => squash(s.text))).toEqual([
        'SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))',
        'SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(x, 0) AS k FROM unnest($1::text[]) AS x ORDER BY 1) AS s',
      ]);
      expect(small.map((s) => s.values)).toEqual([['portfolio:pf_1'], [['debtor:pf_1:a', 'debtor:pf_1:b', 'debt:pf_1:d1']]]);
      const many = Array.from({ length: MAX_KEY_LOCKS + 1 }, (_, i) => `e${i}`);
      expect(batchLockStatements('pf_1', many, [])).toEqual([{ text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', values: ['portfolio:pf_1'] }]);
      expect(batchLockStatements('pf_1', many.slice(0, MAX_KEY_LOCKS), [])).toHaveLength(2);
      expect(batchLockStatements('pf_1', [], [])).toEqual([]);
      expect(importLockSql("'portfolio:pf_1'")).toBe("SELECT pg_advisory_xact_lock(hashtextextended('portfolio:pf_1', 0))");
    });

    it('SET LOCAL of the caller’s constants only', () => {
      expect(setLocalSql({ statement_timeout: '600000', enable_seqscan: 'off' })).toBe("SET LOCAL statement_timeout = '600000'; SET LOCAL enable_seqscan = 'off'");
      expect(() => setLocalSql({ enable_seqscan: "off'; DROP TABLE debtors; --" })).toThrow('not a setting');
      expect(() => setLocalSql({ 'x; y': 'on' })).toThrow('not a setting');
    });
  });

  describe('statements and tombstones', () => {
    it('numbers parameters in order; unnest takes one array per column', () => {
      const p = new Params();
      const portfolio = p.add('pf_1', 'text');
      const rows = unnestRows(p, [['id', 'text', ['a']], ['pos', 'int', [0]]]);
      expect([portfolio, rows]).toEqual(['$1::text', 'unnest($2::text[], $3::int[]) AS u(id, pos)']);
      expect(p.statement('x')).toEqual({ text: 'x', values: ['pf_1', ['a'], [0]] });
    });

    it('an external id is erased when a tombstone of one of its candidates was found', () => {
      const tombstones = new ErasureTombstones(Buffer.alloc(32, 1));
      const candidates = tombstones.candidatesOf(['gone', 'here']);
      expect(tombstonesStatement('pf_1', candidates).values).toEqual(['pf_1', candidates]);
      expect(erasedAmong(tombstones, ['gone', 'here'], [{ hash: tombstones.tombstone('gone') }])).toEqual(new Set(['gone']));
      expect(erasedAmong(tombstones, ['gone', 'here'], [])).toEqual(new Set());
    });
  });
});
