/**
 * OAuth for hosted assistants: registered clients, authorization codes, grants (one sign-in of a
 * client for an account) and their access and refresh tokens. Secrets are stored as hashes only
 * (client secrets, codes, tokens); revoking a grant ends every token of it.
 */
import { statements } from "./statements.js"

export const oauth = statements(
  `CREATE TABLE oauth_clients (
  id uuid PRIMARY KEY,
  secret_hash text,
  name text NOT NULL,
  redirect_uris jsonb NOT NULL,
  created_at timestamptz NOT NULL
)`,
  `CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  resource text,
  scope text,
  expires_at timestamptz NOT NULL
)`,
  `CREATE INDEX oauth_codes_expiry_idx ON oauth_codes (expires_at)`,
  `CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY,
  client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
)`,
  `CREATE INDEX oauth_grants_account_idx ON oauth_grants (account_id, created_at DESC)`,
  `CREATE INDEX oauth_grants_client_idx ON oauth_grants (client_id)`,
  `CREATE TABLE oauth_tokens (
  token_hash text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  resource text,
  scope text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
)`,
  `CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id)`,
  `CREATE INDEX oauth_tokens_expiry_idx ON oauth_tokens (expires_at)`
)
