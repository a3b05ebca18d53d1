/**
 * The search index (`transcripts_tsv_idx`, GIN over each transcript's words) takes a transcript
 * into its entries when the row is written (`fastupdate = off`), and what is already pending is
 * merged now.
 *
 * With GIN's default (`fastupdate = on`), new rows wait in the index's pending list until a vacuum
 * (or a list of 4 MB) merges them, and every search reads the whole list. A transcript brings
 * about a thousand words, so a few dozen new transcripts made a list that the planner rightly
 * priced above reading the table: on a table of 3,000 transcripts with 64 new ones, a rare-word
 * search read every row and unpacked each row's words twice (total and page), 22 ms instead of
 * 0.6 ms after a vacuum. Transcripts are written once and searched many times; a write now updates
 * the index at once: a 1,000-word transcript is inserted in 4.0 ms at the median either way, and in
 * 4.8 ms on average instead of 4.3.
 */
import { statements } from "./statements.js"

export const searchIndexFastupdate = statements(
  `ALTER INDEX transcripts_tsv_idx SET (fastupdate = off)`,
  `SELECT gin_clean_pending_list('transcripts_tsv_idx'::regclass)`
)
