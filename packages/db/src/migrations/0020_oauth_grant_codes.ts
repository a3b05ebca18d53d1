/**
 * A grant remembers the hash of the authorization code it was made from (`code_hash`), so that the
 * code presented again, after it was taken, revokes that grant and every token it issued (OAuth 2.1
 * §4.1.3, RFC 6749 §4.1.2: someone else holds the code). Grants made before this migration have
 * none. The hash is a 256-bit random secret's, unique; the index serves the look-up of a replay.
 */
import { statements } from "./statements.js"

export const oauthGrantCodes = statements(
  `ALTER TABLE oauth_grants ADD COLUMN code_hash text`,
  `CREATE UNIQUE INDEX oauth_grants_code_idx ON oauth_grants (code_hash) WHERE code_hash IS NOT NULL`
)
