/**
 * Themes: one row per account and transcript once its themes were unlocked (no row: locked). The
 * status follows the themes machine (processing, completed, refunded); `unlocks` counts the paid
 * unlocks (the ledger keys of a charge and its refund name it); the detection is kept as JSON;
 * processing rows carry the lease of the worker detecting them.
 *
 * `themes_runnable_idx` serves the reconciler: the processing rows, whose lease may have expired.
 */
import { statements } from "./statements.js"

export const themes = statements(
  `CREATE TABLE themes (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  transcript_id uuid NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
  video_id text NOT NULL,
  language text NOT NULL,
  status text NOT NULL CONSTRAINT themes_status_check
    CHECK (status IN ('processing', 'completed', 'refunded')),
  unlocks integer NOT NULL CHECK (unlocks >= 1),
  credits_charged integer NOT NULL CHECK (credits_charged >= 0),
  result jsonb,
  error text,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  CONSTRAINT themes_account_transcript UNIQUE (account_id, transcript_id),
  CONSTRAINT themes_completed_result CHECK (status <> 'completed' OR result IS NOT NULL)
)`,
  `CREATE INDEX themes_runnable_idx ON themes (lease_expires_at) WHERE status = 'processing'`
)
