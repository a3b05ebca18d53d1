/**
 * The request-time check of a `webhook_url` (DESIGN decision 6): the URL rule of the domain, then
 * the addresses. A literal address is classified directly; a host name is resolved through the
 * `AddressResolver` port and refused when ANY address it resolves to is refused (a name with one
 * public and one internal address could be steered to the internal one), or when it does not
 * resolve at all. The allow-list (`VERBATIM_WEBHOOK_ALLOWED_HOSTS`) lets named hosts and addresses
 * through. The sender checks again at delivery, against the address it connects to.
 */
import { type Errors, Webhook } from "@verbatim/domain"
import { Config, ConfigError, Context, Effect, Either } from "effect"
import { AddressResolver } from "../ports/webhooks.js"
import { fieldError } from "./failures.js"

/**
 * The allow-list setting: comma-separated `host` (default ports only), `host:port` or `host:*`,
 * empty by default; an entry whose port is no port stops the start naming it.
 */
export const webhookAllowedHostsConfig: Config.Config<ReadonlyArray<string>> = Config.string(
  "VERBATIM_WEBHOOK_ALLOWED_HOSTS"
).pipe(
  Config.withDefault(""),
  Config.mapOrFail((setting) =>
    Either.mapLeft(Webhook.readAllowedHosts(setting), (reason) =>
      ConfigError.InvalidData(["VERBATIM_WEBHOOK_ALLOWED_HOSTS"], reason)
    )
  )
)

/** The allow-list in force (from `webhookAllowedHostsConfig`), for use cases that check webhooks. */
export class WebhookAllowList extends Context.Tag("@verbatim/core/WebhookAllowList")<
  WebhookAllowList,
  ReadonlyArray<string>
>() {}

const refuse = (reason: string): Errors.ApiError => fieldError(["webhook_url"], reason)

/**
 * `url` when a webhook may be sent to it now; otherwise `invalid_request` naming `webhook_url`
 * with the reason (in `message` and `details.issues`).
 */
export const checkWebhookUrl = Effect.fn("checkWebhookUrl")(function* (
  url: string,
  allowedHosts: ReadonlyArray<string>
) {
  const target = yield* Either.mapLeft(Webhook.checkUrl(url, allowedHosts), refuse)
  yield* Effect.annotateCurrentSpan({ "webhook.host": target.host, "webhook.allowed": target.allowed })
  if (target.ip || target.allowed) return url
  const resolver = yield* AddressResolver
  const addresses = yield* resolver
    .resolve(target.host)
    .pipe(Effect.mapError((failure) => refuse(`${target.host} does not resolve (${failure.reason})`)))
  if (addresses.length === 0) return yield* refuse(`${target.host} does not resolve to any address`)
  for (const address of addresses) {
    yield* Either.mapLeft(Webhook.checkAddress(address, target.host, target.port, allowedHosts), refuse)
  }
  return url
})
