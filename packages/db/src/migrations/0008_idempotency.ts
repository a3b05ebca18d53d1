/**
 * Idempotency keys: the first answer to a request sent with an `Idempotency-Key`, kept 24 hours per
 * account, endpoint and key. `request` is the request's canonical JSON (the same key with another
 * request is refused); `response` is null while the first request still runs.
 */
import { statements } from "./statements.js"

export const idempotency = statements(
  `CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  endpoint text NOT NULL,
  key text NOT NULL,
  request text NOT NULL,
  response jsonb,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, endpoint, key)
)`,
  `CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`
)
