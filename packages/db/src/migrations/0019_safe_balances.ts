/**
 * Balances and ledger amounts stay within 2^53 - 1 (`Credits.maxBalance`), the largest whole number
 * a JSON or JavaScript number carries exactly. The admin use case refuses a grant past it before
 * writing; these checks are the backstop (grants racing each other): a write that would pass it
 * fails whole, and nothing is posted. A balance past it could not be read back, so every request
 * reading it answered 500. `NOT VALID`: a database already holding such a balance still migrates
 * (the checks hold for every write from now on).
 */
import { statements } from "./statements.js"

export const safeBalances = statements(
  `ALTER TABLE accounts ADD CONSTRAINT accounts_credits_safe CHECK (credits <= 9007199254740991) NOT VALID`,
  `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_amount_safe
    CHECK (amount BETWEEN -9007199254740991 AND 9007199254740991) NOT VALID`
)
