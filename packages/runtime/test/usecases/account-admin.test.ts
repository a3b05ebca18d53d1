/**
 * AccountAdmin and Balance on the production wiring: an account's credits are a ledger grant from
 * the start (the balance equals the ledger), its default mode follows its creation date unless
 * given; keys are shown once and listed by prefix; a grant with a key applies once however often
 * (and however concurrently) it is sent; bad amounts and unknown accounts or keys are refused
 * without writing anything. Balance answers what the ledger holds.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Access, AccountAdmin, apiKeyPrefix, Balance, Transcribe } from "@verbatim/core"
import { Credits, type Ids } from "@verbatim/domain"
import { Effect, FastCheck as fc } from "effect"
import {
  books,
  createAccount,
  expectApiError,
  expectBalancedBooks,
  newAccount,
  oldAccount,
  suiteOptions,
  transcribeRequest,
  unknownUuid,
  useCasesLayer,
  videos
} from "./support.js"

const unknownAccount = unknownUuid as Ids.AccountId

/** Listings show the first 12 characters of a key (docs/decisions/http.md). */
const keyPrefixLength = 12

layer(useCasesLayer(), suiteOptions)("AccountAdmin and Balance on the production wiring", (it) => {
  describe("accounts", () => {
    it.effect("creates an account whose credits are one ledger grant; lists and gets it", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const account = yield* admin.createAccount({ name: "  Acme Research  ", plan: "pro", credits: 25 })
        expect(account).toMatchObject({ name: "Acme Research", plan: "pro", credits: 25 })
        const { balance, entries } = yield* expectBalancedBooks(account)
        expect(balance).toBe(25)
        expect(entries.map((e) => [e.kind, e.amount, e.key, e.jobId])).toEqual([
          ["grant", 25, "grant:initial", null]
        ])
        expect(yield* admin.getAccount(account.id)).toEqual(account)
        expect((yield* admin.listAccounts).find((a) => a.id === account.id)).toEqual(account)

        const empty = yield* admin.createAccount({ name: "Empty", plan: "free", credits: 0 })
        expect((yield* books(empty)).entries).toEqual([])
        expect(empty.credits).toBe(0)
      })
    )

    it.effect("the default mode follows the creation date (auto from 2026-10-01) unless given", () =>
      Effect.gen(function* () {
        expect((yield* createAccount({ createdAt: oldAccount })).defaultMode).toBe("captions_only")
        expect((yield* createAccount({ createdAt: newAccount })).defaultMode).toBe("auto")
        expect(
          (yield* createAccount({ createdAt: newAccount, defaultMode: "human_captions_only" })).defaultMode
        ).toBe("human_captions_only")
      })
    )

    it.effect("refuses a blank name, a bad amount and unknown accounts, writing nothing", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const before = (yield* admin.listAccounts).length
        const blank = yield* expectApiError(
          admin.createAccount({ name: "   ", plan: "free", credits: 1 }),
          "invalid_request"
        )
        expect(blank.details.issues).toEqual([{ path: ["name"], message: expect.any(String) }])
        for (const credits of [-1, 1.5]) {
          const error = yield* expectApiError(
            admin.createAccount({ name: "Bad credits", plan: "free", credits: credits as Credits.Credits }),
            "invalid_request"
          )
          expect(error.details.issues).toEqual([{ path: ["amount"], message: expect.any(String) }])
        }
        // A refused initial grant rolls the account back with it.
        expect(yield* admin.listAccounts).toHaveLength(before)
        for (const effect of [
          Effect.asVoid(admin.getAccount(unknownAccount)),
          Effect.asVoid(admin.setPlan(unknownAccount, "pro")),
          Effect.asVoid(admin.issueKey(unknownAccount)),
          Effect.asVoid(admin.listKeys(unknownAccount)),
          Effect.asVoid(admin.grantCredits(unknownAccount, 5 as Credits.Credits, "nobody"))
        ]) {
          const error = yield* expectApiError(effect, "not_found")
          expect(error.status).toBe(404)
        }
      })
    )

    it.effect("setPlan changes the plan and keeps the rest", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const account = yield* createAccount({ plan: "free", credits: 3 })
        const upgraded = yield* admin.setPlan(account.id, "business")
        expect(upgraded).toEqual({ ...account, plan: "business" })
        expect(yield* admin.getAccount(account.id)).toEqual(upgraded)
      })
    )
  })

  describe("keys", () => {
    it.effect("issues a key shown once, listed by prefix; revoking it once works, twice is not_found", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const access = yield* Access
        const account = yield* createAccount()
        const issued = yield* admin.issueKey(account.id)
        expect(issued.key.startsWith(apiKeyPrefix)).toBe(true)
        expect(issued.record).toMatchObject({
          accountId: account.id,
          prefix: issued.key.slice(0, keyPrefixLength),
          revokedAt: null
        })
        const listed = yield* admin.listKeys(account.id)
        expect(listed).toEqual([issued.record])
        expect(JSON.stringify(listed)).not.toContain(issued.key)
        expect((yield* access.authenticate(issued.key)).id).toBe(account.id)

        yield* admin.revokeKey(issued.record.id)
        const [revoked] = yield* admin.listKeys(account.id)
        expect(revoked?.revokedAt).not.toBeNull()
        yield* expectApiError(access.authenticate(issued.key), "invalid_api_key")
        yield* expectApiError(admin.revokeKey(issued.record.id), "not_found")
        yield* expectApiError(admin.revokeKey(unknownUuid), "not_found")
      })
    )
  })

  describe("grants", () => {
    it.effect("a grant with a key applies once; without a key every grant applies", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const account = yield* createAccount({ credits: 1 })
        const once = yield* admin.grantCredits(
          account.id,
          5 as Credits.Credits,
          "promotion",
          "grant:promo-2026"
        )
        expect(once.credits).toBe(6)
        const twice = yield* admin.grantCredits(
          account.id,
          7 as Credits.Credits,
          "promotion again",
          "grant:promo-2026"
        )
        expect(twice.credits).toBe(6)
        yield* admin.grantCredits(account.id, 2 as Credits.Credits, "top-up")
        const last = yield* admin.grantCredits(account.id, 2 as Credits.Credits, "top-up")
        expect(last.credits).toBe(10)
        const zero = yield* admin.grantCredits(account.id, 0 as Credits.Credits, "nothing", "grant:zero")
        expect(zero.credits).toBe(10)
        const { entries } = yield* expectBalancedBooks(account)
        expect(entries.map((e) => e.amount).sort((a, b) => a - b)).toEqual([1, 2, 2, 5])
        expect(entries.find((e) => e.key === "grant:promo-2026")).toMatchObject({
          amount: 5,
          reason: "promotion"
        })
        for (const amount of [-3, 2.5]) {
          yield* expectApiError(
            admin.grantCredits(account.id, amount as Credits.Credits, "bad"),
            "invalid_request"
          )
        }
        expect((yield* expectBalancedBooks(account)).balance).toBe(10)
      })
    )

    it.effect.prop(
      "a grant past the largest balance (2^53 - 1) is refused naming amount, nothing written; up to it is granted",
      [
        fc.integer({ min: 0, max: 1000 }),
        fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(2 ** 60, 1e300))
      ],
      ([credits, excess]) =>
        Effect.gen(function* () {
          const admin = yield* AccountAdmin
          const account = yield* createAccount({ credits: credits as Credits.Credits })
          const amount = Credits.grantableTo(credits) + excess
          const refused = yield* expectApiError(
            admin.grantCredits(account.id, amount as Credits.Credits, "too much", "grant:too-much"),
            "invalid_request"
          )
          expect(refused.details.issues).toEqual([{ path: ["amount"], message: expect.any(String) }])
          expect((yield* expectBalancedBooks(account)).balance).toBe(credits)
          expect(yield* admin.getAccount(account.id)).toEqual(account)
          expect((yield* admin.listAccounts).find((a) => a.id === account.id)).toEqual(account)
          const full = yield* admin.grantCredits(
            account.id,
            Credits.grantableTo(credits) as Credits.Credits,
            "fill"
          )
          expect(full.credits).toBe(Credits.maxBalance)
          expect((yield* expectBalancedBooks(account)).balance).toBe(Credits.maxBalance)
          yield* expectApiError(
            admin.grantCredits(account.id, 1 as Credits.Credits, "one more"),
            "invalid_request"
          )
          yield* expectApiError(
            admin.createAccount({
              name: "Too rich",
              plan: "free",
              credits: (Credits.maxBalance + excess) as Credits.Credits
            }),
            "invalid_request"
          )
        }),
      { timeout: 60_000, fastCheck: { numRuns: 10 } }
    )

    it.effect.prop(
      "the same grant key sent concurrently applies once",
      [fc.integer({ min: 2, max: 10 }), fc.integer({ min: 1, max: 50 })],
      ([copies, amount]) =>
        Effect.gen(function* () {
          const admin = yield* AccountAdmin
          const account = yield* createAccount({ credits: 0 })
          yield* Effect.all(
            Array.from({ length: copies }, () =>
              admin.grantCredits(account.id, amount as Credits.Credits, "concurrent", "grant:once")
            ),
            { concurrency: "unbounded" }
          )
          const { balance, entries } = yield* expectBalancedBooks(account)
          expect(balance).toBe(amount)
          expect(entries).toHaveLength(1)
        }),
      { timeout: 60_000, fastCheck: { numRuns: 10 } }
    )
  })

  describe("Balance", () => {
    it.effect("answers the ledger's balance now and the account's plan", () =>
      Effect.gen(function* () {
        const balance = yield* Balance
        const account = yield* createAccount({ plan: "basic", credits: 3 })
        expect(yield* balance.credits(account)).toMatchObject({
          credits: 3,
          plan: "basic",
          thumbnail_credits: 0,
          onboarding_completed: account.onboardingCompleted
        })
        // The account object is a snapshot; the balance is read from the ledger each time.
        yield* (yield* Transcribe).transcribe(account, transcribeRequest({ video: videos.manualAndAuto }))
        yield* (yield* AccountAdmin).grantCredits(account.id, 4 as Credits.Credits, "top-up")
        expect((yield* balance.credits(account)).credits).toBe(6)
        expect((yield* expectBalancedBooks(account)).balance).toBe(6)
      })
    )
  })
})
