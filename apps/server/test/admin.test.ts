import { NodeContext } from "@effect/platform-node"
import { afterEach, beforeEach, describe, expect, layer, vi } from "@effect/vitest"
import { AccountAdmin } from "@verbatim/core"
import { Effect, Exit, Layer } from "effect"
import { runAdmin } from "../src/admin/commands.js"
import { TestUseCasesLive } from "./server.js"

let printed: Array<string> = []
let complaints: Array<string> = []
beforeEach(() => {
  printed = []
  complaints = []
  vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    printed.push(args.map(String).join(" "))
  })
  vi.spyOn(console, "error").mockImplementation((...args: Array<unknown>) => {
    complaints.push(args.map(String).join(" "))
  })
})
afterEach(() => {
  vi.restoreAllMocks()
})

/** Runs `verbatim-admin <args>` on the test database; what it printed. */
const admin = (...args: Array<string>) =>
  Effect.gen(function* () {
    const service = yield* AccountAdmin
    printed = []
    yield* runAdmin(Layer.succeed(AccountAdmin, service))(["node", "verbatim-admin", ...args]).pipe(
      Effect.provide(NodeContext.layer)
    )
    return printed.join("\n")
  })

const jsonOf = (text: string): unknown => JSON.parse(text)

// Live clock: the embedded worker runs in the background, between queries that wait on the database (test/server.ts).
layer(TestUseCasesLive, { timeout: "60 seconds", excludeTestServices: true })("verbatim-admin", (it) => {
  describe("accounts", () => {
    it.effect("create prints the account (JSON with --json), list shows it", () =>
      Effect.gen(function* () {
        const created = jsonOf(
          yield* admin(
            "accounts",
            "create",
            "--name",
            "Acme",
            "--plan",
            "basic",
            "--credits",
            "25",
            "--created-at",
            "2025-03-01T00:00:00Z",
            "--json"
          )
        ) as Record<string, unknown>
        expect(created).toMatchObject({
          name: "Acme",
          plan: "basic",
          credits: 25,
          default_mode: "captions_only",
          created_at: "2025-03-01T00:00:00.000Z"
        })
        const line = yield* admin(
          "accounts",
          "create",
          "--name",
          "Beta",
          "--plan",
          "free",
          "--credits",
          "0",
          "--default-mode",
          "auto"
        )
        expect(line).toMatch(
          /^Created account [0-9a-f-]{36} "Beta": free plan, 0 credits, default mode auto$/
        )
        const listed = jsonOf(yield* admin("accounts", "list", "--json")) as Array<{
          id: string
          name: string
        }>
        expect(listed.map((a) => a.name)).toEqual(expect.arrayContaining(["Acme", "Beta"]))
        expect(yield* admin("accounts", "list")).toContain(String(created.id))
      })
    )
  })

  describe("keys and credits", () => {
    it.effect("issue shows the key once, list shows prefixes, revoke revokes, grant adds credits", () =>
      Effect.gen(function* () {
        const account = jsonOf(
          yield* admin("accounts", "create", "--name", "Keys", "--plan", "pro", "--credits", "5", "--json")
        ) as { id: string }
        const issued = jsonOf(yield* admin("keys", "issue", "--account", account.id, "--json")) as {
          key: string
          id: string
          prefix: string
          revoked_at: null
        }
        expect(issued.key).toMatch(/^vbt_[A-Za-z0-9_-]{43}$/)
        expect(issued.key.startsWith(issued.prefix)).toBe(true)
        const keys = yield* admin("keys", "list", "--account", account.id)
        expect(keys).toContain(issued.id)
        expect(keys).toContain("active")
        expect(keys).not.toContain(issued.key)
        expect(yield* admin("keys", "revoke", issued.id)).toBe(`Revoked key ${issued.id}`)
        const after = jsonOf(yield* admin("keys", "list", "--account", account.id, "--json")) as Array<{
          revoked_at: string | null
        }>
        expect(after[0]?.revoked_at).not.toBeNull()
        const granted = jsonOf(
          yield* admin(
            "credits",
            "grant",
            "--account",
            account.id,
            "--amount",
            "7",
            "--reason",
            "bonus",
            "--json"
          )
        ) as { credits: number }
        expect(granted.credits).toBe(12)
      })
    )

    it.effect(
      "a grant past the largest balance fails and writes nothing: the account and the list still read",
      () =>
        Effect.gen(function* () {
          const account = jsonOf(
            yield* admin(
              "accounts",
              "create",
              "--name",
              "Rich",
              "--plan",
              "pro",
              "--credits",
              "1000",
              "--json"
            )
          ) as { id: string }
          const huge = yield* Effect.exit(
            admin("credits", "grant", "--account", account.id, "--amount", "9007199254740991")
          )
          expect(Exit.isFailure(huge)).toBe(true)
          const listed = jsonOf(yield* admin("accounts", "list", "--json")) as Array<{
            id: string
            credits: number
          }>
          expect(listed.find((a) => a.id === account.id)?.credits).toBe(1000)
          const granted = jsonOf(
            yield* admin(
              "credits",
              "grant",
              "--account",
              account.id,
              "--amount",
              "9007199254739991",
              "--json"
            )
          ) as { credits: number }
          expect(granted.credits).toBe(9007199254740991)
        })
    )

    it.effect("an unknown account or key fails with the use case's error", () =>
      Effect.gen(function* () {
        const unknownAccount = yield* Effect.exit(
          admin("keys", "issue", "--account", "00000000-0000-4000-8000-000000000000")
        )
        expect(Exit.isFailure(unknownAccount)).toBe(true)
        const unknownKey = yield* Effect.exit(admin("keys", "revoke", "nope"))
        expect(Exit.isFailure(unknownKey)).toBe(true)
        const badAmount = yield* Effect.exit(
          admin("credits", "grant", "--account", "00000000-0000-4000-8000-000000000000", "--amount", "-1")
        )
        expect(Exit.isFailure(badAmount)).toBe(true)
      })
    )
  })

  describe("refused flag values", () => {
    const someone = "00000000-0000-4000-8000-000000000000"
    it.effect.each([
      [
        ["credits", "grant", "--account", someone, "--amount", "-5000"],
        '--amount: expected a whole number of credits, 0 or more, got "-5000"'
      ],
      [
        ["credits", "grant", "--account", someone, "--amount", "ten"],
        '--amount: expected a whole number of credits, 0 or more, got "ten"'
      ],
      // Decimal digits only: JavaScript's Number would read 0x10 as 16 and 1e3 as 1000.
      ...["0x10", "1e3", " 12", "0b1", ""].map((written) => [
        ["credits", "grant", "--account", someone, "--amount", written],
        `--amount: expected a whole number of credits, 0 or more, got ${JSON.stringify(written)}`
      ]),
      [
        ["accounts", "create", "--name", "X", "--plan", "gold", "--credits", "5"],
        '--plan: expected one of free, basic, pro, business, got "gold"'
      ],
      [
        ["accounts", "create", "--name", "X", "--plan", "pro", "--credits", "1.5"],
        '--credits: expected a whole number of credits, 0 or more, got "1.5"'
      ],
      [
        ["accounts", "create", "--name", "X", "--plan", "pro", "--credits", "1", "--default-mode", "fast"],
        '--default-mode: expected one of auto, captions_only, human_captions_only, speech_to_text_only, got "fast"'
      ],
      [
        ["accounts", "create", "--name", "X", "--plan", "pro", "--credits", "1", "--created-at", "yesterday"],
        '--created-at: expected an ISO 8601 date-time such as 2026-10-01T00:00:00Z, got "yesterday"'
      ],
      [
        ["keys", "issue", "--account", "nope"],
        '--account: expected an account id (a uuid, as `accounts list` shows), got "nope"'
      ]
    ])("%j names the flag and what it takes, never a schema tree", ([args, message]) =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(admin(...(args as Array<string>)))
        expect(Exit.isFailure(exit)).toBe(true)
        const said = complaints.join("\n")
        expect(said).toContain(message)
        expect(said).not.toMatch(/refinement|└─|Predicate/)
      })
    )
  })

  describe("webhooks", () => {
    it.effect("secret shows the account's Standard Webhooks secret, the same each time, until --rotate", () =>
      Effect.gen(function* () {
        const account = yield* (yield* AccountAdmin).createAccount({ name: "Hooks", plan: "pro", credits: 0 })
        const first = jsonOf(yield* admin("webhooks", "secret", "--account", account.id, "--json")) as {
          webhook_secret: string
        }
        expect(first.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
        const again = jsonOf(yield* admin("webhooks", "secret", "--account", account.id, "--json")) as {
          webhook_secret: string
        }
        expect(again.webhook_secret).toBe(first.webhook_secret)
        const rotated = yield* admin("webhooks", "secret", "--account", account.id, "--rotate")
        expect(rotated).toContain("New webhook signing secret")
        expect(rotated).not.toContain(first.webhook_secret)
        const after = yield* admin("webhooks", "secret", "--account", account.id)
        expect(rotated.endsWith(after.split(": ")[1] ?? "missing")).toBe(true)
        const unknown = yield* Effect.exit(
          admin("webhooks", "secret", "--account", "00000000-0000-4000-8000-000000000000")
        )
        expect(Exit.isFailure(unknown)).toBe(true)
      })
    )
  })
})
