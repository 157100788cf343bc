import type { AuthContext } from '@dc/contracts';
import { reachableDebtorsSql } from '../../apps/api-core/src/debtors/debtors.repository';
import { eventsPageSql } from '../../apps/api-core/src/events/events.repository';
import type { StatementTemplate, StatementsFile } from './protocol';

type Filter = Parameters<typeof reachableDebtorsSql>[1];

// Two stand-ins for each part that varies per request: the positions where the two builds differ
// are where the service writes the request's value (the text must not change).
const IDS = ['dbt_00000000000000000000000001', 'dbt_00000000000000000000000002'] as const;
const PORTFOLIOS = ['pf_00000000000000000000000001', 'pf_00000000000000000000000002'] as const;
const TAKES = [51, 52] as const;

function differing(a: { text: string; values: unknown[] }, b: { text: string; values: unknown[] }, what: string): number[] {
  if (a.text !== b.text || a.values.length !== b.values.length) throw new Error(`api-core's SQL changes its text with the ${what}: cannot template it`);
  const at = a.values.flatMap((v, i) => (v === b.values[i] ? [] : [i]));
  if (!at.length) throw new Error(`api-core's SQL does not bind the ${what}`);
  return at;
}

/**
 * api-core's own statement for one request shape (`reachableDebtorsSql`, the builder api-core's
 * repository runs through Database.prepared), with the positions of its per-request values.
 */
function template(name: string, auth: AuthContext, shape: { cursor: boolean; portfolio: boolean; byId: boolean }): StatementTemplate {
  const build = (i: 0 | 1, vary: 'afterId' | 'portfolioId' | 'id' | 'take' | 'none') => {
    const pick = (part: typeof vary) => (vary === part ? i : 0);
    const filter: Filter = {};
    if (shape.portfolio) filter.portfolioId = PORTFOLIOS[pick('portfolioId')];
    if (shape.byId) filter.id = IDS[pick('id')];
    const sql = reachableDebtorsSql(auth, filter, shape.cursor ? IDS[pick('afterId')] : null, shape.byId ? 1 : TAKES[pick('take')]);
    return { text: sql.text, values: sql.values };
  };
  const base = build(0, 'none');
  const at = (part: 'afterId' | 'portfolioId' | 'id' | 'take') => differing(build(0, part), build(1, part), part);
  return {
    name,
    text: base.text,
    values: base.values,
    afterIdAt: shape.cursor ? at('afterId') : [],
    portfolioIdAt: shape.portfolio ? at('portfolioId') : [],
    idAt: shape.byId ? at('id') : [],
    takeAt: shape.byId ? [] : at('take'),
  };
}

/** api-core's statement of the events feed's first page (no filter), with the position of `limit + 1`. */
function eventsTemplate(auth: AuthContext): StatementTemplate {
  const build = (take: number) => {
    const sql = eventsPageSql(auth, {}, null, take);
    return { text: sql.text, values: sql.values };
  };
  const base = build(TAKES[0]);
  return { name: 'bare_events', text: base.text, values: base.values, afterIdAt: [], portfolioIdAt: [], idAt: [], takeAt: differing(base, build(TAKES[1]), 'take') };
}

/** Every statement bare-pg-service serves, for the tenant's key (`auth`), and the fixed `/me` bytes. */
export function baselineStatements(auth: AuthContext, meBody: string): StatementsFile {
  return {
    list: template('bare_list', auth, { cursor: false, portfolio: false, byId: false }),
    listAfter: template('bare_list_after', auth, { cursor: true, portfolio: false, byId: false }),
    listInPortfolio: template('bare_list_pf', auth, { cursor: false, portfolio: true, byId: false }),
    listInPortfolioAfter: template('bare_list_pf_after', auth, { cursor: true, portfolio: true, byId: false }),
    byId: template('bare_by_id', auth, { cursor: false, portfolio: false, byId: true }),
    events: eventsTemplate(auth),
    meBody,
  };
}
