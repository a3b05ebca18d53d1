/**
 * Batches: one row per POST /batch, one row per video of it. Every item has its job id assigned when
 * the batch is accepted; the worker that runs the item records the video's transcribe request under
 * that id, so an item run twice (its worker died) finds its job instead of running again, and an
 * item's status, error and credits are its job's. Items whose reference named no video fail at once
 * (`error`, no job). `webhook_delivery_id` names the batch's delivery in the outbox once it finished.
 */
import { statements } from "./statements.js"

export const batches = statements(
  `CREATE TABLE batches (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  request_id uuid NOT NULL,
  status text NOT NULL CONSTRAINT batches_status_check
    CHECK (status IN ('processing', 'completed', 'partial', 'failed')),
  request jsonb NOT NULL,
  total integer NOT NULL CHECK (total > 0),
  webhook_url text,
  webhook_delivery_id uuid,
  fetches_after_finish integer NOT NULL DEFAULT 0,
  fetch_window_started_at timestamptz,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz
)`,
  `CREATE INDEX batches_account_idx ON batches (account_id, created_at DESC)`,
  `CREATE INDEX batches_processing_idx ON batches (created_at) WHERE status = 'processing'`,
  `CREATE TABLE batch_items (
  batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  request_id uuid NOT NULL,
  video_id text NOT NULL,
  job_id uuid NOT NULL,
  error text,
  lease_owner text,
  lease_expires_at timestamptz,
  done boolean NOT NULL DEFAULT false,
  PRIMARY KEY (batch_id, position)
)`,
  `CREATE INDEX batch_items_pending_idx ON batch_items (batch_id) WHERE NOT done`
)
