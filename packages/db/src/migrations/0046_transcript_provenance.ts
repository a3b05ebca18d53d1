/**
 * A transcript's provenance: `translated_from` is the language a machine translation
 * was made from, NULL for an original (captions or ASR). "Best" reads originals first, so a newer
 * translation is never served as the transcript of a video. Rows written before it are backfilled
 * where they are identifiable: a translation's charge is keyed `charge:translation:<id>` and its
 * reason names the pair ("... from en to es ...").
 */
import { statements } from "./statements.js"

export const transcriptProvenance = statements(
  `ALTER TABLE transcripts ADD COLUMN translated_from text`,
  `UPDATE transcripts t SET translated_from = substring(l.reason FROM ' from ([A-Za-z0-9-]+) to ')
  FROM ledger_entries l
  WHERE l.account_id = t.account_id AND l.key = 'charge:translation:' || t.id::text
    AND substring(l.reason FROM ' from ([A-Za-z0-9-]+) to ') IS NOT NULL`
)
