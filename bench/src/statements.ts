/**
 * The SQL of the measured requests as Verbatim's repositories send it (`packages/db`), written out
 * for the bare server (`bare.ts`) and for timing the search page alone (`run.ts`): the key look-up,
 * the owned-transcript read, the job insert, and the search page and count.
 */
export const keyLookup = `SELECT a.id, a.name, a.plan, a.credits, a.default_mode, a.onboarding_completed, a.created_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
  WHERE k.hash = $1 AND k.revoked_at IS NULL`

export const ownedRead = `SELECT id, account_id, video_id, video_title, language, source_kind, status, word_count,
  segment_count, duration_seconds, credits_used, created_at, channel_id, text, segments, has_timestamps,
  summary, mind_map, asr_intelligence
  FROM transcripts WHERE account_id = $1 AND video_id = $2 AND status = 'succeeded'
  ORDER BY created_at DESC, id DESC`

export const jobInsert = `INSERT INTO jobs (id, account_id, request_id, kind, video_id, video_title, language, source,
  mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
  lease_expires_at, next_run_at, created_at, started_at, completed_at, updated_at)
  VALUES ($1, $2, $3, 'transcribe', $4, $5, $6, $7, $8, 'completed', NULL, 0,
    (SELECT t.id FROM transcripts t WHERE t.id = $9 FOR KEY SHARE),
    NULL, NULL, 0, NULL, NULL, NULL, $10, $10, $10, $10)
  RETURNING transcript_id`

const summaryColumns = `id, video_id, video_title, language, source_kind, status, word_count, segment_count,
  duration_seconds, credits_used, created_at`
const searchFilter = `account_id = $1 AND status = 'succeeded'
  AND (tsv @@ websearch_to_tsquery('english', $2) OR video_id = $2)`
export const searchPage = `WITH page AS MATERIALIZED (SELECT ${summaryColumns} FROM transcripts WHERE ${searchFilter}
  ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4) SELECT * FROM page ORDER BY created_at DESC, id DESC`
export const searchCount = `SELECT count(*)::int AS n FROM transcripts WHERE ${searchFilter}`
