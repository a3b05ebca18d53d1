/**
 * Webhook delivery: resolving a receiver's host name, and sending one signed delivery over HTTP.
 * The rules (which addresses are refused, the retry schedule, what an answer means) live in domain
 * and core; the adapters only do the I/O.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"

/** A host name that could not be resolved (no such name, resolver down). */
export class ResolveFailed extends Schema.TaggedError<ResolveFailed>()("ResolveFailed", {
  host: Schema.String,
  reason: Schema.String
}) {}

export class AddressResolver extends Context.Tag("@verbatim/core/AddressResolver")<
  AddressResolver,
  {
    /** Every IPv4 and IPv6 address the name resolves to (at least one). */
    readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>, ResolveFailed>
  }
>() {}

/** One delivery attempt to send. */
export interface WebhookRequest {
  readonly url: string
  /** `webhook-id`: the delivery's id, the same on every attempt. */
  readonly id: string
  /** `webhook-timestamp`, seconds since the epoch, of this attempt. */
  readonly timestampSeconds: number
  /** The JSON body, exactly as signed and sent. */
  readonly body: string
  /** The account's signing secret (`whsec_` + base64). */
  readonly secret: Redacted.Redacted
  /** Give up on the attempt after this long. */
  readonly timeoutMs: number
  /** Host names that may resolve to private addresses (the allow-list setting). */
  readonly allowedHosts: ReadonlyArray<string>
}

/** What one attempt came to. */
export type WebhookOutcome =
  /** The receiver answered with this status (redirects are not followed: 3xx is an answer). */
  | { readonly _tag: "Answered"; readonly status: number; readonly durationMs: number }
  /** No answer: connection refused or reset, DNS failure, TLS failure, timeout. Retryable. */
  | { readonly _tag: "Unreachable"; readonly reason: string; readonly durationMs: number }
  /** Not sent: the URL resolves to an address that is not allowed (checked again at delivery). */
  | { readonly _tag: "Refused"; readonly reason: string }

export class WebhookSender extends Context.Tag("@verbatim/core/WebhookSender")<
  WebhookSender,
  {
    /**
     * Sends one POST with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
     * `webhook-signature`), connecting only to an address checked against the address rules at
     * this moment (so a DNS change after the request was accepted is caught).
     */
    readonly send: (request: WebhookRequest) => Effect.Effect<WebhookOutcome>
  }
>() {}
