/**
 * The admin command: accounts, API keys and credit grants, through core's `AccountAdmin`.
 *
 *   accounts create --name NAME --plan PLAN --credits N [--created-at ISO] [--default-mode MODE]
 *   accounts list
 *   keys issue --account ID
 *   keys revoke KEY_ID
 *   keys list --account ID
 *   credits grant --account ID --amount N [--reason TEXT]
 *   oauth list [--account ID] [--all] | oauth revoke GRANT_ID | oauth revoke --client CLIENT_ID
 *   doctor [--json]     the effective settings (secrets redacted) and a check of each dependency
 *
 * Every command prints a readable line, or JSON with `--json`. The store is opened only when a
 * command runs (so `--help` needs no database), from the layer given to `runAdmin`.
 */
import { Args, type CliApp, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { AccountAdmin, type OAuthStore, type PersistenceError } from "@verbatim/core"
import { Credits, type Errors, Ids, Mode, Plan } from "@verbatim/domain"
import { Console, Effect, Layer, Option, Redacted, Schema } from "effect"
import manifest from "../../package.json" with { type: "json" }
import { type DoctorFailed, doctorInServer } from "./doctor-spawn.js"
import { oauthCommand } from "./oauth.js"
import { accountJson, accountLine, issuedJson, json, keyJson, keyLine } from "./output.js"

/** The message of a flag whose value is refused: the flag, what it takes, what it got. */
export const flagMessage = (flag: string, expects: string, value: unknown): string =>
  `--${flag}: expected ${expects}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`

/**
 * Checks a flag's value with a schema; a refused value fails with one line naming the flag and what
 * it takes (`--amount: expected a whole number of credits, 0 or more, got -5000`), never a schema tree.
 */
const checked =
  <A, B, I extends A>(flag: string, expects: string, schema: Schema.Schema<B, I>) =>
  (option: Options.Options<A>): Options.Options<B> =>
    Options.mapEffect(option, (value) =>
      Schema.decodeUnknown(schema)(value).pipe(
        Effect.mapError(() => ValidationError.invalidValue(HelpDoc.p(flagMessage(flag, expects, value))))
      )
    )

/** A flag taking one of a few words, named with them when another is given. */
const oneOf = <L extends string>(flag: string, values: ReadonlyArray<L>) =>
  Options.text(flag).pipe(
    Options.withPseudoName(values.join("|")),
    checked(flag, `one of ${values.join(", ")}`, Schema.Literal(...(values as [L, ...Array<L>])))
  )

const asJson = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a readable line"))
const accountId = Options.text("account").pipe(
  Options.withPseudoName("uuid"),
  checked("account", "an account id (a uuid, as `accounts list` shows)", Ids.AccountId),
  Options.withDescription("The account's id (uuid)")
)
const amount = (name: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    checked(
      name,
      "a whole number of credits, 0 or more",
      // Decimal digits only: `Number` would also read "0x10" as 16 and "1e3" as 1000.
      Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]+$/)), Schema.NumberFromString).pipe(
        Schema.compose(Credits.Credits)
      )
    )
  )

const print = (asJsonOutput: boolean, value: unknown, line: string) =>
  Console.log(asJsonOutput ? json(value) : line)

const makeAdminCli = <E, R, E2, R2>(
  admin: Layer.Layer<AccountAdmin, E, R>,
  oauth: Layer.Layer<OAuthStore, E2, R2>
) => {
  const accountsCreate = Command.make(
    "create",
    {
      name: Options.text("name").pipe(Options.withDescription("The account's name")),
      plan: oneOf("plan", Plan.allPlans).pipe(Options.withDescription("free, basic, pro or business")),
      credits: amount("credits").pipe(Options.withDescription("Credits granted at creation")),
      createdAt: Options.text("created-at").pipe(
        Options.withPseudoName("ISO-8601"),
        checked("created-at", "an ISO 8601 date-time such as 2026-10-01T00:00:00Z", Schema.DateTimeUtc),
        Options.optional,
        Options.withDescription("Creation date (ISO 8601); it decides the default mode. Default: now")
      ),
      defaultMode: oneOf("default-mode", Mode.Mode.literals).pipe(
        Options.optional,
        Options.withDescription("The mode applied when a request names none. Default: by creation date")
      ),
      json: asJson
    },
    (options) =>
      Effect.gen(function* () {
        const accounts = yield* AccountAdmin
        const account = yield* accounts.createAccount({
          name: options.name,
          plan: options.plan,
          credits: options.credits,
          createdAt: Option.getOrUndefined(options.createdAt),
          defaultMode: Option.getOrUndefined(options.defaultMode)
        })
        yield* print(
          options.json,
          accountJson(account),
          `Created account ${account.id} "${account.name}": ${account.plan} plan, ${account.credits} credits, default mode ${account.defaultMode}`
        )
      })
  ).pipe(Command.withDescription("Create an account"), Command.provide(admin))

  const accountsList = Command.make("list", { json: asJson }, (options) =>
    Effect.gen(function* () {
      const accounts = yield* (yield* AccountAdmin).listAccounts
      yield* print(
        options.json,
        accounts.map(accountJson),
        accounts.length === 0 ? "No accounts." : accounts.map(accountLine).join("\n")
      )
    })
  ).pipe(Command.withDescription("List every account"), Command.provide(admin))

  const keysIssue = Command.make("issue", { account: accountId, json: asJson }, (options) =>
    Effect.gen(function* () {
      const issued = yield* (yield* AccountAdmin).issueKey(options.account)
      yield* print(
        options.json,
        issuedJson(issued),
        `Issued key ${issued.record.id} for account ${options.account}. The key, shown this once:\n${issued.key}`
      )
    })
  ).pipe(
    Command.withDescription("Issue an API key (shown once; only its hash is stored)"),
    Command.provide(admin)
  )

  const keysRevoke = Command.make(
    "revoke",
    { keyId: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("The key's id")), json: asJson },
    (options) =>
      Effect.gen(function* () {
        yield* (yield* AccountAdmin).revokeKey(options.keyId)
        yield* print(options.json, { revoked: true, key_id: options.keyId }, `Revoked key ${options.keyId}`)
      })
  ).pipe(Command.withDescription("Revoke an API key"), Command.provide(admin))

  const keysList = Command.make("list", { account: accountId, json: asJson }, (options) =>
    Effect.gen(function* () {
      const keys = yield* (yield* AccountAdmin).listKeys(options.account)
      yield* print(
        options.json,
        keys.map(keyJson),
        keys.length === 0 ? "No keys." : keys.map(keyLine).join("\n")
      )
    })
  ).pipe(Command.withDescription("List an account's keys (prefixes only)"), Command.provide(admin))

  const creditsGrant = Command.make(
    "grant",
    {
      account: accountId,
      amount: amount("amount").pipe(Options.withDescription("Credits to add")),
      reason: Options.text("reason").pipe(
        Options.withDefault("admin grant"),
        Options.withDescription("Why, as written in the ledger")
      ),
      json: asJson
    },
    (options) =>
      Effect.gen(function* () {
        const account = yield* (yield* AccountAdmin).grantCredits(
          options.account,
          options.amount,
          options.reason
        )
        yield* print(
          options.json,
          accountJson(account),
          `Granted ${options.amount} credits to ${account.id}: balance ${account.credits}`
        )
      })
  ).pipe(Command.withDescription("Grant credits (a ledger entry)"), Command.provide(admin))

  const webhooksSecret = Command.make(
    "secret",
    {
      account: accountId,
      rotate: Options.boolean("rotate").pipe(
        Options.withDescription("Replace the secret: deliveries from now on are signed with the new one")
      ),
      json: asJson
    },
    (options) =>
      Effect.gen(function* () {
        const secret = Redacted.value(
          yield* (yield* AccountAdmin).webhookSecret(options.account, options.rotate)
        )
        yield* print(
          options.json,
          { account_id: options.account, webhook_secret: secret, rotated: options.rotate },
          `${options.rotate ? "New webhook" : "Webhook"} signing secret of ${options.account}: ${secret}`
        )
      })
  ).pipe(
    Command.withDescription("Show (or --rotate) the account's webhook signing secret (Standard Webhooks)"),
    Command.provide(admin)
  )

  return Command.make("verbatim-admin").pipe(
    Command.withDescription("Administer a Verbatim server's accounts, API keys, credits and webhook secrets"),
    Command.withSubcommands([
      Command.make("accounts").pipe(
        Command.withDescription("Accounts"),
        Command.withSubcommands([accountsCreate, accountsList])
      ),
      Command.make("keys").pipe(
        Command.withDescription("API keys"),
        Command.withSubcommands([keysIssue, keysRevoke, keysList])
      ),
      Command.make("credits").pipe(
        Command.withDescription("Credits"),
        Command.withSubcommands([creditsGrant])
      ),
      Command.make("webhooks").pipe(
        Command.withDescription("Webhook signing"),
        Command.withSubcommands([webhooksSecret])
      ),
      oauthCommand(oauth),
      Command.make("doctor", { json: asJson }, (options) => doctorInServer(options.json)).pipe(
        Command.withDescription(
          "Print the effective settings (secrets redacted) and check the database, Redis, storage, engines and video platform; exit 1 on a problem"
        )
      )
    ])
  )
}

/**
 * The admin command over the given `AccountAdmin` layer (and `OAuthStore` layer for the `oauth`
 * commands; without one they answer that this command line has no OAuth store), run on a command
 * line (`process.argv`).
 */
export const runAdmin = <E, R, E2 = never, R2 = never>(
  admin: Layer.Layer<AccountAdmin, E, R>,
  oauth: Layer.Layer<OAuthStore, E2, R2> = noOAuthStore as Layer.Layer<OAuthStore, E2, R2>
): ((
  argv: ReadonlyArray<string>
) => Effect.Effect<
  void,
  E | E2 | Errors.ApiError | PersistenceError | ValidationError.ValidationError | DoctorFailed,
  R | R2 | CliApp.CliApp.Environment
>) => Command.run(makeAdminCli(admin, oauth), { name: "verbatim-admin", version: manifest.version })

const noOAuthStore: Layer.Layer<OAuthStore> = Layer.die("verbatim-admin was started without the OAuth store")
