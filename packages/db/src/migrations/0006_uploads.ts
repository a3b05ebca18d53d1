/**
 * Uploads: media files registered by an account, PUT to the blob store, then consumed by one ASR
 * job. `uploads_sweep_idx` serves the sweeper: files not yet removed, by expiry.
 */
import { statements } from "./statements.js"

export const uploads = statements(
  `CREATE TABLE uploads (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  filename text NOT NULL,
  mime_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  duration_seconds integer NOT NULL CHECK (duration_seconds > 0),
  path text NOT NULL,
  status text NOT NULL CONSTRAINT uploads_status_check
    CHECK (status IN ('registered', 'uploaded', 'consumed')),
  job_id uuid REFERENCES jobs (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  uploaded_at timestamptz,
  consumed_at timestamptz,
  file_removed_at timestamptz
)`,
  `CREATE INDEX uploads_sweep_idx ON uploads (expires_at) WHERE file_removed_at IS NULL`
)
