/**
 * Collections: playlist and channel batches (POST /playlists/resolve, POST /channels/resolve), one
 * row per resolve and one per video it listed (metadata only, in listed order). `batch_id` is the
 * batch that ran the videos: the first batch of the account created at or after the resolve that
 * carries any of them, written once when a read finds it (DESIGN decision 14, docs/decisions/collections.md).
 * `channel_job_months` counts the channel resolves of an account per calendar month (UTC,
 * `YYYY-MM`): a resolve takes one with a conditional upsert, so two at once cannot pass the cap.
 */
import { statements } from "./statements.js"

export const collections = statements(
  `CREATE TABLE collections (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind text NOT NULL CONSTRAINT collections_kind_check CHECK (kind IN ('playlist', 'channel')),
  playlist_id text,
  playlist_title text,
  playlist_url text,
  channel_id text,
  channel_title text,
  channel_url text,
  metadata jsonb,
  total_videos integer NOT NULL CHECK (total_videos >= 0),
  batch_id uuid REFERENCES batches (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
)`,
  `CREATE INDEX collections_account_kind_created_idx ON collections (account_id, kind, created_at DESC, id DESC)`,
  `CREATE TABLE collection_videos (
  collection_id uuid NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  id uuid NOT NULL UNIQUE,
  video_id text NOT NULL,
  title text,
  url text,
  published_at timestamptz,
  duration_seconds integer CHECK (duration_seconds >= 0),
  PRIMARY KEY (collection_id, position)
)`,
  `CREATE INDEX collection_videos_video_idx ON collection_videos (collection_id, video_id)`,
  `CREATE TABLE channel_job_months (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (account_id, month)
)`
)
