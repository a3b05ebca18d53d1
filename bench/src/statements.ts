/**
 * The SQL of the measured requests as Verbatim's repositories send it (`packages/db`), written out
 * for the bare server (`bare.ts`) and for timing the search page alone (`run.ts`): the key look-up,
 * the owned-transcript read, the job insert, and the search page with its total (and the count
 * alone, for an empty page).
 */
export const keyLookup = `SELECT a.id, a.name, a.plan, a.credits, a.default_mode, a.onboarding_completed, a.created_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
  WHERE k.hash = $1 AND k.revoked_at IS NULL`

/** The balance read of `GET /credits` (`Ledger.funds`). */
export const balanceRead = "SELECT credits, held FROM accounts WHERE id = $1"

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
  duration_seconds, credits_used, created_at, translated_from`
const listFilter = `account_id = $1 AND status = 'succeeded'`
const match = `(tsv @@ websearch_to_tsquery('english', $2) OR video_id = $2)`
const newestFirst = "ORDER BY created_at DESC, id DESC"
/**
 * The page of a search and its total in one statement: $3 limit, $4 offset, $5 the least count of
 * matches for which the page is looked for in the newest rows first (32 times $7), $6 how many of
 * them (twice $7), $7 the rows up to the page's end (`searchParameters` makes them).
 */
export const searchPage = `WITH total AS MATERIALIZED (SELECT count(*)::int AS n FROM transcripts WHERE ${listFilter} AND ${match}),
  recent AS MATERIALIZED (
    SELECT ${summaryColumns}, ${match} AS hit FROM transcripts
    WHERE ${listFilter} AND (SELECT n FROM total) >= $5 ${newestFirst} LIMIT $6),
  dense AS MATERIALIZED (SELECT (SELECT count(*) FROM recent WHERE hit) >= least((SELECT n FROM total), $7) AS found),
  page AS MATERIALIZED (
    (SELECT ${summaryColumns} FROM recent WHERE hit AND (SELECT found FROM dense) ${newestFirst} LIMIT $3 OFFSET $4)
    UNION ALL
    (SELECT ${summaryColumns} FROM transcripts WHERE ${listFilter} AND ${match} AND NOT (SELECT found FROM dense)
      ${newestFirst} LIMIT $3 OFFSET $4))
  SELECT page.*, (SELECT n FROM total) AS total FROM page ${newestFirst}`
export const searchParameters = (accountId: string, words: string, limit: number, offset: number) => [
  accountId,
  words,
  limit,
  offset,
  32 * (offset + limit),
  2 * (offset + limit),
  offset + limit
]
/** The total of a search whose page is empty. */
export const searchCount = `SELECT count(*)::int AS n FROM transcripts WHERE ${listFilter} AND ${match}`
