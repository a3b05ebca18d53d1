/**
 * The credit ledger: one row per grant, charge or refund, unique per account and key so that the
 * same operation never posts twice. Charges are negative, grants and refunds positive.
 */
import { statements } from "./statements.js"

export const ledger = statements(
  `CREATE TABLE ledger_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind text NOT NULL CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('grant', 'charge', 'refund')),
  amount bigint NOT NULL,
  key text NOT NULL,
  job_id uuid,
  reason text NOT NULL,
  created_at timestamptz NOT NULL,
  CONSTRAINT ledger_entries_account_key UNIQUE (account_id, key),
  CONSTRAINT ledger_entries_sign_check CHECK (CASE WHEN kind = 'charge' THEN amount <= 0 ELSE amount >= 0 END)
)`,
  `CREATE INDEX ledger_entries_job_idx ON ledger_entries (job_id) WHERE job_id IS NOT NULL`
)
