/**
 * `OAuthStore` on every database: a client with its redirect URIs, a code taken once (of two
 * concurrent takes exactly one wins), tokens seen with their grant's client and account, a refresh
 * token marked used once (of two concurrent exchanges one wins), a revoked grant's tokens showing
 * the revocation, and the admin's listing; grants, codes and sign-ins follow the API key that made
 * them; the sweep removes codes, sign-ins and tokens only after their expiry (a refresh token still
 * usable stays), a bounded number a call, and old clients only when never signed in with.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import { Accounts, OAuthStore } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, newAccount } from "./fixtures.js"

/** A new active API key of the account; its id. */
const newKey = (accountId: Ids.AccountId) =>
  Effect.flatMap(Accounts, (accounts) =>
    accounts.addKey({
      id: randomUUID(),
      accountId,
      hash: `key-hash-${randomUUID()}`,
      prefix: "vbt_test",
      createdAt: at("2026-10-02T10:00:00.000Z")
    })
  )

describeEachDatabase(
  "OAuthStore repository",
  (it) => {
    it.effect("keeps clients, takes codes once, rotates refresh tokens once, revokes grants", () =>
      Effect.gen(function* () {
        const store = yield* OAuthStore
        const account = yield* newAccount()
        const key = yield* newKey(account.id)
        const client = {
          id: randomUUID(),
          secretHash: "secret-hash",
          name: "Assistant",
          redirectUris: ["https://assistant.example/cb", "http://127.0.0.1:3333/cb"],
          createdAt: at("2026-11-01T10:00:00.000Z")
        }
        yield* store.saveClient(client)
        expect(yield* store.client(client.id)).toEqual(Option.some(client))
        expect(yield* store.client(randomUUID())).toEqual(Option.none())

        const code = {
          codeHash: `code-${randomUUID()}`,
          clientId: client.id,
          accountId: account.id,
          apiKeyId: key.id,
          redirectUri: "https://assistant.example/cb",
          codeChallenge: "c".repeat(43),
          resource: "https://verbatim.example/api/v2/gpt/mcp",
          scope: null,
          expiresAt: at("2026-11-01T10:10:00.000Z")
        }
        yield* store.saveCode(code)
        const takes = yield* Effect.all([store.takeCode(code.codeHash), store.takeCode(code.codeHash)], {
          concurrency: "unbounded"
        })
        expect(takes.filter(Option.isSome)).toEqual([Option.some({ ...code, keyRevoked: false })])

        const grantId = randomUUID()
        yield* store.saveGrant({
          id: grantId,
          clientId: client.id,
          accountId: account.id,
          apiKeyId: key.id,
          createdAt: code.expiresAt
        })
        const token = (kind: "access" | "refresh") => ({
          tokenHash: `${kind}-${randomUUID()}`,
          kind,
          grantId,
          resource: code.resource,
          scope: null,
          createdAt: at("2026-11-01T10:05:00.000Z"),
          expiresAt: at("2026-11-01T11:05:00.000Z")
        })
        const access = token("access")
        const refresh = token("refresh")
        yield* store.saveToken(access)
        yield* store.saveToken(refresh)
        expect(yield* store.token(access.tokenHash)).toEqual(
          Option.some({
            tokenHash: access.tokenHash,
            kind: "access",
            grantId,
            clientId: client.id,
            accountId: account.id,
            resource: code.resource,
            scope: null,
            expiresAt: access.expiresAt,
            usedAt: null,
            revokedAt: null
          })
        )
        const used = yield* Effect.all(
          [
            store.useRefreshToken(refresh.tokenHash, at("2026-11-01T10:30:00.000Z")),
            store.useRefreshToken(refresh.tokenHash, at("2026-11-01T10:30:00.000Z"))
          ],
          { concurrency: "unbounded" }
        )
        expect(used.filter((won) => won)).toHaveLength(1)
        expect(yield* store.useRefreshToken(access.tokenHash, at("2026-11-01T10:31:00.000Z"))).toBe(false)

        expect((yield* store.grants({ accountId: account.id, all: false })).map((g) => g.id)).toEqual([
          grantId
        ])
        expect(yield* store.revokeGrant(grantId, at("2026-11-01T10:40:00.000Z"))).toBe(true)
        expect(yield* store.revokeGrant(grantId, at("2026-11-01T10:41:00.000Z"))).toBe(false)
        const revoked = yield* store.token(access.tokenHash)
        expect(Option.map(revoked, (t) => t.revokedAt)).toEqual(Option.some(at("2026-11-01T10:40:00.000Z")))
        expect(yield* store.grants({ accountId: account.id, all: false })).toEqual([])
        expect(yield* store.grants({ accountId: account.id, all: true })).toEqual([
          {
            id: grantId,
            clientId: client.id,
            clientName: "Assistant",
            accountId: account.id,
            createdAt: code.expiresAt,
            revokedAt: at("2026-11-01T10:40:00.000Z")
          }
        ])
        expect(yield* store.revokeClient(client.id, at("2026-11-01T10:50:00.000Z"))).toBe(0)
        expect(yield* store.revokeGrant("not-a-uuid", at("2026-11-01T10:50:00.000Z"))).toBe(false)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("sweeps codes and tokens only after their expiry; a usable refresh token stays", () =>
      Effect.gen(function* () {
        const store = yield* OAuthStore
        const account = yield* newAccount()
        const key = yield* newKey(account.id)
        const clientId = randomUUID()
        yield* store.saveClient({
          id: clientId,
          secretHash: null,
          name: "Sweep",
          redirectUris: ["https://assistant.example/cb"],
          createdAt: at("2020-01-01T00:00:00.000Z")
        })
        // Dates of 2020: no other test's rows are due at these instants.
        const code = (expiresAt: string) => ({
          codeHash: `code-${randomUUID()}`,
          clientId,
          accountId: account.id,
          apiKeyId: key.id,
          redirectUri: "https://assistant.example/cb",
          codeChallenge: "c".repeat(43),
          resource: null,
          scope: null,
          expiresAt: at(expiresAt)
        })
        const oldCode = code("2020-01-01T00:10:00.000Z")
        const liveCode = code("2020-01-01T12:10:00.000Z")
        yield* store.saveCode(oldCode)
        yield* store.saveCode(liveCode)
        const grantId = randomUUID()
        yield* store.saveGrant({
          id: grantId,
          clientId,
          accountId: account.id,
          apiKeyId: key.id,
          createdAt: at("2020-01-01T00:00:00.000Z")
        })
        const token = (kind: "access" | "refresh", expiresAt: string) => ({
          tokenHash: `${kind}-${randomUUID()}`,
          kind,
          grantId,
          resource: null,
          scope: null,
          createdAt: at("2020-01-01T00:00:00.000Z"),
          expiresAt: at(expiresAt)
        })
        const oldAccess = token("access", "2020-01-01T01:00:00.000Z")
        const usedRefresh = token("refresh", "2020-01-01T02:00:00.000Z")
        const liveAccess = token("access", "2020-01-01T12:00:00.000Z")
        const liveRefresh = token("refresh", "2020-01-31T00:00:00.000Z")
        for (const t of [oldAccess, usedRefresh, liveAccess, liveRefresh]) yield* store.saveToken(t)
        expect(yield* store.useRefreshToken(usedRefresh.tokenHash, at("2020-01-01T00:30:00.000Z"))).toBe(true)
        const tokensLeft = () =>
          Effect.forEach([oldAccess, usedRefresh, liveAccess, liveRefresh], (t) =>
            Effect.map(store.token(t.tokenHash), Option.isSome)
          )

        // At the very instant of an expiry nothing goes.
        expect(yield* store.sweepExpired(at("2020-01-01T00:10:00.000Z"), 100)).toBe(0)
        // After the old code, access token and used refresh token expired: at most the limit a call,
        // codes first.
        const now = at("2020-01-01T06:00:00.000Z")
        expect(yield* store.sweepExpired(now, 2)).toBe(2)
        expect(yield* tokensLeft()).toEqual([false, true, true, true])
        expect(yield* store.sweepExpired(now, 100)).toBe(1)
        expect(yield* tokensLeft()).toEqual([false, false, true, true])
        expect(yield* store.sweepExpired(now, 100)).toBe(0)
        expect(yield* store.takeCode(oldCode.codeHash)).toEqual(Option.none())
        expect(yield* store.takeCode(liveCode.codeHash)).toEqual(
          Option.some({ ...liveCode, keyRevoked: false })
        )
        // Weeks before its own expiry, the refresh token is still usable.
        expect(yield* store.sweepExpired(at("2020-01-30T23:59:59.999Z"), 100)).toBe(1)
        expect(yield* tokensLeft()).toEqual([false, false, false, true])
        expect(yield* store.useRefreshToken(liveRefresh.tokenHash, at("2020-01-30T23:59:59.999Z"))).toBe(true)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("a grant, its code and its sign-in follow their API key: revoking the key ends them", () =>
      Effect.gen(function* () {
        const store = yield* OAuthStore
        const accounts = yield* Accounts
        const account = yield* newAccount()
        const key = yield* newKey(account.id)
        const other = yield* newKey(account.id)
        const clientId = randomUUID()
        yield* store.saveClient({
          id: clientId,
          secretHash: null,
          name: "Follows keys",
          redirectUris: ["https://assistant.example/cb"],
          createdAt: at("2026-11-02T10:00:00.000Z")
        })
        const grant = (apiKeyId: string) =>
          Effect.gen(function* () {
            const id = randomUUID()
            yield* store.saveGrant({
              id,
              clientId,
              accountId: account.id,
              apiKeyId,
              createdAt: at("2026-11-02T10:01:00.000Z")
            })
            const tokenHash = `access-${randomUUID()}`
            yield* store.saveToken({
              tokenHash,
              kind: "access",
              grantId: id,
              resource: null,
              scope: null,
              createdAt: at("2026-11-02T10:01:00.000Z"),
              expiresAt: at("2026-11-02T11:01:00.000Z")
            })
            return { id, tokenHash }
          })
        const byKey = yield* grant(key.id)
        const byOther = yield* grant(other.id)
        const code = {
          codeHash: `code-${randomUUID()}`,
          clientId,
          accountId: account.id,
          apiKeyId: key.id,
          redirectUri: "https://assistant.example/cb",
          codeChallenge: "c".repeat(43),
          resource: null,
          scope: null,
          expiresAt: at("2026-11-02T10:10:00.000Z")
        }
        yield* store.saveCode(code)
        const revokedAt = (tokenHash: string) =>
          Effect.map(
            store.token(tokenHash),
            Option.map((t) => t.revokedAt)
          )
        expect(yield* revokedAt(byKey.tokenHash)).toEqual(Option.some(null))

        expect(yield* accounts.revokeKey(key.id, at("2026-11-02T10:05:00.000Z"))).toBe(true)
        // The key's grant reads as revoked from the key's revocation; the other key's grant is live.
        expect(yield* revokedAt(byKey.tokenHash)).toEqual(Option.some(at("2026-11-02T10:05:00.000Z")))
        expect(yield* revokedAt(byOther.tokenHash)).toEqual(Option.some(null))
        expect((yield* store.grants({ accountId: account.id, all: false })).map((g) => g.id)).toEqual([
          byOther.id
        ])
        expect(yield* store.takeCode(code.codeHash)).toEqual(Option.some({ ...code, keyRevoked: true }))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("holds a sign-in for an active key only, taken once, and sweeps it after its expiry", () =>
      Effect.gen(function* () {
        const store = yield* OAuthStore
        const accounts = yield* Accounts
        const account = yield* newAccount()
        const hash = `key-hash-${randomUUID()}`
        const key = yield* accounts.addKey({
          id: randomUUID(),
          accountId: account.id,
          hash,
          prefix: "vbt_test",
          createdAt: at("2026-10-02T10:00:00.000Z")
        })
        const clientId = randomUUID()
        yield* store.saveClient({
          id: clientId,
          secretHash: null,
          name: "Sign-ins",
          redirectUris: ["https://assistant.example/cb"],
          createdAt: at("2026-11-03T00:00:00.000Z")
        })
        const signIn = (keyHash: string, expiresAt: string) =>
          store.saveSignIn({
            idHash: `sign-in-${randomUUID()}`,
            clientId,
            keyHash,
            requestHash: "request",
            expiresAt: at(expiresAt)
          })
        expect(yield* signIn(`key-hash-${randomUUID()}`, "2018-01-01T00:10:00.000Z")).toEqual(Option.none())
        const held = yield* signIn(hash, "2018-01-01T00:10:00.000Z")
        expect(held).toEqual(
          Option.some({
            idHash: Option.getOrThrow(held).idHash,
            clientId,
            accountId: account.id,
            apiKeyId: key.id,
            requestHash: "request",
            expiresAt: at("2018-01-01T00:10:00.000Z")
          })
        )
        const idHash = Option.getOrThrow(held).idHash
        const takes = yield* Effect.all([store.takeSignIn(idHash), store.takeSignIn(idHash)], {
          concurrency: "unbounded"
        })
        expect(takes.filter(Option.isSome)).toEqual([
          Option.some({ ...Option.getOrThrow(held), keyRevoked: false })
        ])

        const stale = Option.getOrThrow(yield* signIn(hash, "2018-01-01T00:20:00.000Z"))
        expect(yield* store.sweepExpired(at("2018-01-01T00:20:00.000Z"), 100)).toBe(0)
        expect(yield* store.sweepExpired(at("2018-01-01T00:20:00.001Z"), 100)).toBe(1)
        expect(yield* store.takeSignIn(stale.idHash)).toEqual(Option.none())

        yield* accounts.revokeKey(key.id, at("2026-10-03T10:00:00.000Z"))
        expect(yield* signIn(hash, "2018-01-01T00:30:00.000Z")).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "sweeps clients registered before a time that never completed a sign-in, a bounded number",
      () =>
        Effect.gen(function* () {
          const store = yield* OAuthStore
          const account = yield* newAccount()
          const key = yield* newKey(account.id)
          // Dates of 2019: no other test's clients were registered this early.
          const client = (createdAt: string) =>
            Effect.gen(function* () {
              const id = randomUUID()
              yield* store.saveClient({
                id,
                secretHash: null,
                name: "Maybe unused",
                redirectUris: ["https://assistant.example/cb"],
                createdAt: at(createdAt)
              })
              return id
            })
          const unused = [
            yield* client("2019-01-01T00:00:00.000Z"),
            yield* client("2019-01-01T00:00:01.000Z")
          ]
          const signedIn = yield* client("2019-01-01T00:00:02.000Z")
          yield* store.saveGrant({
            id: randomUUID(),
            clientId: signedIn,
            accountId: account.id,
            apiKeyId: key.id,
            createdAt: at("2019-01-01T00:05:00.000Z")
          })
          const underWay = yield* client("2019-01-01T00:00:03.000Z")
          yield* store.saveCode({
            codeHash: `code-${randomUUID()}`,
            clientId: underWay,
            accountId: account.id,
            apiKeyId: key.id,
            redirectUri: "https://assistant.example/cb",
            codeChallenge: "c".repeat(43),
            resource: null,
            scope: null,
            expiresAt: at("2030-01-01T00:00:00.000Z")
          })
          const recent = yield* client("2019-06-01T00:00:00.000Z")
          const left = () =>
            Effect.forEach([...unused, signedIn, underWay, recent], (id) =>
              Effect.map(store.client(id), Option.isSome)
            )

          expect(yield* store.sweepUnusedClients(at("2019-01-01T00:00:00.000Z"), 100)).toBe(0)
          expect(yield* store.sweepUnusedClients(at("2019-05-01T00:00:00.000Z"), 1)).toBe(1)
          expect(yield* left()).toEqual([false, true, true, true, true])
          expect(yield* store.sweepUnusedClients(at("2019-05-01T00:00:00.000Z"), 100)).toBe(1)
          expect(yield* left()).toEqual([false, false, true, true, true])
          expect(yield* store.sweepUnusedClients(at("2019-05-01T00:00:00.000Z"), 100)).toBe(0)
        }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
