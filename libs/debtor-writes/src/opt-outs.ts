import type { IdPrefix } from '@dc/contracts';
import type { Statement } from './statement';

/** What an opt-out's note and timeline entry say of where it came from. */
export interface OptOutSource {
  /** `debtor_notes.body`. */
  note: string;
  /** `debtor_timeline_events.data`. */
  event: Readonly<Record<string, string>>;
}

export const OPT_OUT_THROUGH_BATCH: OptOutSource = {
  note: 'Opt-out received through the debtor batch (complianceOptOut true).',
  event: { source: 'debtor_batch' },
};

export function optOutThroughImport(importId: string): OptOutSource {
  return { note: 'Opt-out received through a CSV import (compliance_opt_out true).', event: { source: 'import', importId } };
}

/**
 * An opt-out that begins now (optOutBegins) is recorded as a debtor's own request is: a note, a
 * timeline entry, and every pending message cancelled. Three statements, whatever the number of
 * debtors; `newId` names the note and the timeline entry of each.
 */
export function recordOptOutStatements(debtorIds: string[], source: OptOutSource, newId: (prefix: IdPrefix) => string): Statement[] {
  return [
    {
      text: `INSERT INTO debtor_notes (id, debtor_id, kind, body)
        SELECT u.id, u.debtor_id, 'opt_out', $3::text FROM unnest($1::text[], $2::text[]) AS u(id, debtor_id)`,
      values: [debtorIds.map(() => newId('note')), debtorIds, source.note],
    },
    {
      text: `INSERT INTO debtor_timeline_events (id, debtor_id, kind, data)
        SELECT u.id, u.debtor_id, 'opt_out', $3::jsonb FROM unnest($1::text[], $2::text[]) AS u(id, debtor_id)`,
      values: [debtorIds.map(() => newId('tle')), debtorIds, JSON.stringify(source.event)],
    },
    {
      text: `UPDATE debtor_pending_messages SET status = 'cancelled', cancelled_at = now(), cancel_reason = 'opt_out'
        WHERE debtor_id = ANY($1::text[]) AND status = 'pending'`,
      values: [debtorIds],
    },
  ];
}
