/**
 * Stored transcripts, one per account, video, language and source kind. `tsv` indexes the video id,
 * the title and the text for GET /transcripts?search= with the `english` configuration (stems and
 * stop words; other languages are parsed the same way on both sides, so their words still match).
 * Its planner statistics are off (`SET STATISTICS 0`): with them a common word makes PostgreSQL scan
 * the account's rows in date order and detoast every tsvector, 15-30x slower than the GIN index.
 * List queries read only the metadata columns (word, segment counts and duration are kept as columns).
 */
import { statements } from "./statements.js"

export const transcripts = statements(
  `CREATE TABLE transcripts (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  video_id text NOT NULL,
  language text NOT NULL,
  source_kind text NOT NULL CONSTRAINT transcripts_source_kind_check CHECK (source_kind IN ('manual', 'auto', 'asr')),
  status text NOT NULL
    CONSTRAINT transcripts_status_check CHECK (status IN ('queued', 'processing', 'succeeded', 'failed')),
  video_title text,
  channel_id text,
  text text NOT NULL,
  segments jsonb NOT NULL,
  has_timestamps boolean NOT NULL,
  word_count integer NOT NULL CHECK (word_count >= 0),
  segment_count integer NOT NULL CHECK (segment_count >= 0),
  duration_seconds integer NOT NULL CHECK (duration_seconds >= 0),
  credits_used integer NOT NULL CHECK (credits_used >= 0),
  summary jsonb,
  mind_map jsonb,
  asr_intelligence jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  tsv tsvector NOT NULL GENERATED ALWAYS AS (
    to_tsvector('english'::regconfig, video_id || ' ' || coalesce(video_title, '') || ' ' || text)
  ) STORED,
  CONSTRAINT transcripts_owner_key UNIQUE (account_id, video_id, language, source_kind)
)`,
  `CREATE INDEX transcripts_tsv_idx ON transcripts USING GIN (tsv)`,
  `ALTER TABLE transcripts ALTER COLUMN tsv SET STATISTICS 0`,
  `CREATE INDEX transcripts_account_status_created_idx ON transcripts (account_id, status, created_at DESC, id DESC)`
)
