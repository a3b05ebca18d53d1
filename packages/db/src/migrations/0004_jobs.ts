/**
 * Jobs: every transcribe request, with its outcome. A job keeps pointing at the transcript it
 * produced or served until that transcript is deleted (then `transcript_id` becomes null).
 */
import { statements } from "./statements.js"

export const jobs = statements(
  `CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  request_id uuid NOT NULL,
  video_id text NOT NULL,
  video_title text,
  language text,
  source text CONSTRAINT jobs_source_check CHECK (source IN ('manual', 'auto', 'asr')),
  mode text NOT NULL
    CONSTRAINT jobs_mode_check CHECK (mode IN ('auto', 'captions_only', 'human_captions_only', 'speech_to_text_only')),
  status text NOT NULL CONSTRAINT jobs_status_check
    CHECK (status IN ('completed', 'processing', 'failed', 'requires_asr_confirmation')),
  error text,
  credits_used integer NOT NULL DEFAULT 0 CHECK (credits_used >= 0),
  transcript_id uuid REFERENCES transcripts (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz
)`,
  `CREATE INDEX jobs_account_created_idx ON jobs (account_id, created_at DESC, id DESC)`,
  `CREATE INDEX jobs_account_status_created_idx ON jobs (account_id, status, created_at DESC, id DESC)`,
  `CREATE INDEX jobs_transcript_idx ON jobs (transcript_id) WHERE transcript_id IS NOT NULL`
)
