/**
 * Asynchronous work. Jobs gain what a worker needs: their kind, a JSON payload (ASR options, format,
 * the test kind's settings), the webhook to notify, attempts, a lease (owner and expiry) and the
 * time they may run next. Accounts gain a webhook signing secret. Webhook deliveries are an outbox,
 * written in the same transaction as the result they carry, with one row per attempt.
 *
 * `jobs_runnable_idx` serves the reconciler: the processing jobs whose lease is free or expired.
 */
import { statements } from "./statements.js"

export const work = statements(
  `ALTER TABLE jobs ADD COLUMN kind text NOT NULL DEFAULT 'transcribe'`,
  `ALTER TABLE jobs ADD COLUMN payload jsonb`,
  `ALTER TABLE jobs ADD COLUMN webhook_url text`,
  `ALTER TABLE jobs ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0)`,
  `ALTER TABLE jobs ADD COLUMN lease_owner text`,
  `ALTER TABLE jobs ADD COLUMN lease_expires_at timestamptz`,
  `ALTER TABLE jobs ADD COLUMN next_run_at timestamptz`,
  `ALTER TABLE jobs ADD COLUMN updated_at timestamptz`,
  `CREATE INDEX jobs_runnable_idx ON jobs (next_run_at) WHERE status = 'processing'`,
  `ALTER TABLE accounts ADD COLUMN webhook_secret text`,
  `CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  job_id uuid REFERENCES jobs (id) ON DELETE CASCADE,
  event text NOT NULL,
  url text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL CONSTRAINT webhook_deliveries_status_check
    CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
)`,
  `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_job_idx ON webhook_deliveries (job_id) WHERE job_id IS NOT NULL`,
  `CREATE TABLE webhook_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL CHECK (attempt >= 1),
  at timestamptz NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  PRIMARY KEY (delivery_id, attempt)
)`
)
