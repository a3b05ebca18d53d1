/**
 * Uploads remember when the last signed PUT of their file could still land (`put_closes_at`: the
 * URL's expiry plus the time a PUT of the declared size may take). A presigned S3 URL cannot be
 * revoked and a PUT started before its expiry may end later, so an upload that ended (consumed and
 * its job finished, or expired) and whose file was removed before that moment is swept once more
 * after it (`uploads_recheck_idx` serves that sweep). Rows written before this migration are given
 * their creation plus three hours (the hour of the URL and more than the longest PUT by default).
 */
import { statements } from "./statements.js"

export const uploadPutWindow = statements(
  `ALTER TABLE uploads ADD COLUMN put_closes_at timestamptz`,
  `UPDATE uploads SET put_closes_at = created_at + interval '3 hours'`,
  `ALTER TABLE uploads ALTER COLUMN put_closes_at SET NOT NULL`,
  `CREATE INDEX uploads_recheck_idx ON uploads (put_closes_at) WHERE file_removed_at < put_closes_at`
)
