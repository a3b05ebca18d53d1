/**
 * `verbatim-admin oauth ...`: the sign-ins of hosted assistants (OAuth grants, core's `OAuthStore`).
 *
 *   oauth list [--account ID] [--all]
 *   oauth revoke GRANT_ID           every token of that sign-in stops working at once
 *   oauth revoke --client CLIENT_ID every sign-in of a registered client
 */
import { Args, Command, Options } from "@effect/cli"
import { listGrants, type OAuthGrantView, type OAuthStore, revokeClient, revokeGrant } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Console, DateTime, Effect, type Layer, Schema } from "effect"
import { json } from "./output.js"

const iso = (at: DateTime.Utc): string => DateTime.formatIso(at)

export const grantJson = (grant: OAuthGrantView) => ({
  id: grant.id,
  client_id: grant.clientId,
  client_name: grant.clientName,
  account_id: grant.accountId,
  created_at: iso(grant.createdAt),
  revoked_at: grant.revokedAt === null ? null : iso(grant.revokedAt)
})

export const grantLine = (grant: OAuthGrantView): string =>
  `${grant.id}  account ${grant.accountId}  client ${grant.clientId} "${grant.clientName}"  signed in ${iso(grant.createdAt)}  ${grant.revokedAt === null ? "active" : `revoked ${iso(grant.revokedAt)}`}`

const asJson = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of readable lines"))

/** The `oauth` command group over the given `OAuthStore` layer. */
export const oauthCommand = <E, R>(store: Layer.Layer<OAuthStore, E, R>) => {
  const list = Command.make(
    "list",
    {
      account: Options.text("account").pipe(
        Options.withPseudoName("uuid"),
        Options.withSchema(Ids.AccountId),
        Options.optional,
        Options.withDescription("Only this account's sign-ins")
      ),
      all: Options.boolean("all").pipe(Options.withDescription("Revoked sign-ins too")),
      json: asJson
    },
    (options) =>
      Effect.gen(function* () {
        const grants = yield* listGrants({
          accountId: options.account._tag === "Some" ? options.account.value : undefined,
          all: options.all
        })
        yield* Console.log(
          options.json
            ? json(grants.map(grantJson))
            : grants.length === 0
              ? "No sign-ins."
              : grants.map(grantLine).join("\n")
        )
      })
  ).pipe(
    Command.withDescription("List the sign-ins of hosted assistants (OAuth grants)"),
    Command.provide(store)
  )

  const revoke = Command.make(
    "revoke",
    {
      id: Args.text({ name: "ID" }).pipe(
        Args.withSchema(Schema.UUID),
        Args.withDescription("The grant's id (as `oauth list` shows), or the client's with --client")
      ),
      client: Options.boolean("client").pipe(
        Options.withDescription("ID is a client: revoke every sign-in of that client")
      ),
      json: asJson
    },
    (options) =>
      Effect.gen(function* () {
        if (options.client) {
          const count = yield* revokeClient(options.id)
          yield* Console.log(
            options.json
              ? json({ client_id: options.id, revoked: count })
              : `Revoked ${count} sign-in${count === 1 ? "" : "s"} of client ${options.id}`
          )
          return
        }
        const done = yield* revokeGrant(options.id)
        yield* Console.log(
          options.json
            ? json({ grant_id: options.id, revoked: done })
            : done
              ? `Revoked sign-in ${options.id}: its access and refresh tokens no longer work`
              : `No active sign-in ${options.id}`
        )
      })
  ).pipe(Command.withDescription("Revoke a sign-in (or every sign-in of a client)"), Command.provide(store))

  return Command.make("oauth").pipe(
    Command.withDescription("Sign-ins of hosted assistants (OAuth)"),
    Command.withSubcommands([list, revoke])
  )
}
