/**
 * Accounts and their API keys. The balance (`credits`) is a cache of the ledger's sum, kept in the
 * same transaction as every entry, and can never go below zero. Keys are stored only as hashes.
 */
import { statements } from "./statements.js"

export const accounts = statements(
  `CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CONSTRAINT accounts_plan_check CHECK (plan IN ('free', 'basic', 'pro', 'business')),
  credits bigint NOT NULL DEFAULT 0 CONSTRAINT accounts_credits_nonnegative CHECK (credits >= 0),
  default_mode text NOT NULL CONSTRAINT accounts_default_mode_check
    CHECK (default_mode IN ('auto', 'captions_only', 'human_captions_only', 'speech_to_text_only')),
  onboarding_completed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
)`,
  `CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  hash text NOT NULL CONSTRAINT api_keys_hash_key UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
)`,
  `CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at)`
)
