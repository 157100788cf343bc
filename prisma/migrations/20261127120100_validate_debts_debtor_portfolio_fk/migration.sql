-- Checks the debts that existed before 20261127120000 (VALIDATE takes a lock that allows writes).
ALTER TABLE debts VALIDATE CONSTRAINT debts_debtor_portfolio_fkey;
