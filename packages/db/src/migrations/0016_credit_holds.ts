/**
 * Credit holds: paid work that runs later (speech recognition, a translation in flight) reserves
 * its quote when it is accepted, so parallel requests can never start more work than the balance
 * covers. One row per hold, keyed per account like ledger entries; its `status` records what became
 * of it: `open` (reserved), `settled` (charged `charged` credits by the ledger entry `settled_key`,
 * never more than `amount`) or `released` (nothing charged). `accounts.held` is the sum of the
 * account's open holds, moved in the same statement as the rows, and never more than the balance:
 * available credits = `credits - held` >= 0. A job's hold names its job (`job_id`); a hold of a
 * request that runs in the caller's request has `expires_at`, after which the reconciler releases it.
 */
import { statements } from "./statements.js"

export const creditHolds = statements(
  `ALTER TABLE accounts ADD COLUMN held bigint NOT NULL DEFAULT 0`,
  `ALTER TABLE accounts ADD CONSTRAINT accounts_held_covered CHECK (held >= 0 AND held <= credits)`,
  `CREATE TABLE credit_holds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key text NOT NULL,
  job_id uuid,
  amount bigint NOT NULL CONSTRAINT credit_holds_amount_check CHECK (amount > 0),
  status text NOT NULL DEFAULT 'open'
    CONSTRAINT credit_holds_status_check CHECK (status IN ('open', 'settled', 'released')),
  charged bigint NOT NULL DEFAULT 0,
  settled_key text,
  reason text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  closed_at timestamptz,
  CONSTRAINT credit_holds_account_key UNIQUE (account_id, key),
  CONSTRAINT credit_holds_charged_check CHECK (charged >= 0 AND charged <= amount
    AND (status = 'settled' OR charged = 0) AND ((status = 'open') = (closed_at IS NULL)))
)`,
  `CREATE INDEX credit_holds_job_idx ON credit_holds (job_id) WHERE job_id IS NOT NULL AND status = 'open'`,
  `CREATE INDEX credit_holds_open_idx ON credit_holds (created_at) WHERE status = 'open'`
)
