-- Read API status filters (docs/adr/0011): keyset pages of one portfolio and status in id order.
CREATE INDEX debtors_portfolio_id_status_id_idx ON debtors (portfolio_id, status, id);
CREATE INDEX debts_portfolio_id_status_id_idx ON debts (portfolio_id, status, id);
