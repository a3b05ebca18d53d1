/**
 * A transcript's segments also as the JSON text the service wrote (`segments_json`): exactly what
 * `JSON.stringify` made of their encoding, which the `jsonb` column does not keep (it reorders keys
 * and adds spaces). Serving an owned transcript again (POST /transcribe) puts this text into the
 * answer as it is, instead of parsing the `jsonb` into objects and writing them back (a fifth of its CPU).
 * Rows written before it hold NULL and are served from `segments` as before.
 */
import { statements } from "./statements.js"

export const transcriptSegmentsJson = statements(`ALTER TABLE transcripts ADD COLUMN segments_json text`)
