/**
 * The `WebhookSender` port on `node:http` / `node:https`: one signed POST per attempt.
 *
 * - The address is checked at the moment of connecting. A host name is resolved by a custom
 *   `lookup` handed to the connection: it resolves, refuses the whole delivery when ANY address is
 *   refused by the domain's address rules (unless the allow-list names the host or the address),
 *   and gives the connection exactly the addresses it checked. Check and connect use one answer,
 *   so a DNS change (rebinding) between the request-time check and delivery cannot reach an
 *   internal address. A literal IP host is checked the same way before any socket is opened.
 * - Redirects are not followed: a 3xx is the receiver's answer.
 * - One total timeout (`timeoutMs`) covers the lookup, connect, TLS, request and the answer's
 *   head. An answer whose head arrived counts as answered; its body is read and discarded up to
 *   `maxAnswerBytes`, within the same deadline.
 * - Headers and signature come from the `standardwebhooks` package, so receivers verify with it.
 * - Every failure is a `WebhookOutcome`: `send` never fails and never throws.
 */
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { type WebhookOutcome, type WebhookRequest, WebhookSender } from "@verbatim/core"
import { Webhook } from "@verbatim/domain"
import { Cause, Duration, Effect, Either, Layer, Redacted } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { describeError, type Lookup, systemLookup } from "./lookup.js"

/** The `user-agent` of every delivery. */
export const userAgent = "Verbatim-Webhooks/1.0"

/** How much of an answer's body is read (and discarded) before the connection is dropped. */
export const defaultMaxAnswerBytes = 64 * 1024

export interface Options {
  /** The resolver used at connect time (tests pass a fixed one); the system resolver by default. */
  readonly lookup?: Lookup
  readonly maxAnswerBytes?: number
}

/** What one POST came to, before its duration is added. */
type Attempt =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "Unreachable"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly reason: string }

/** The Standard Webhooks headers and ours, or why the request cannot be signed. */
const headersFor = (request: WebhookRequest): Either.Either<Record<string, string>, string> =>
  Either.try({
    try: () => new StandardWebhook(Redacted.value(request.secret)),
    catch: (error) => `the signing secret is not a Standard Webhooks secret (${describeError(error)})`
  }).pipe(
    Either.flatMap((signer) =>
      Either.try({
        try: () => signer.sign(request.id, new Date(request.timestampSeconds * 1000), request.body),
        catch: (error) => `the delivery could not be signed (${describeError(error)})`
      })
    ),
    Either.map((signature) => ({
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(request.body, "utf8")),
      "user-agent": userAgent,
      "webhook-id": request.id,
      "webhook-timestamp": String(request.timestampSeconds),
      "webhook-signature": signature
    }))
  )

/**
 * The `lookup` handed to the connection: resolve, check every address, connect only to checked
 * ones. `onRefused` records why, so the request's error can be told apart from a network failure.
 */
const checkingLookup =
  (
    resolve: Lookup,
    target: Webhook.WebhookTarget,
    allowedHosts: ReadonlyArray<string>,
    onRefused: (reason: string) => void
  ): LookupFunction =>
  (_hostname, options, callback) => {
    resolve(target.host).then(
      (entries) => {
        if (entries.length === 0) {
          callback(Object.assign(new Error(`${target.host} has no addresses`), { code: "ENOTFOUND" }), "")
          return
        }
        for (const entry of entries) {
          const checked = Webhook.checkAddress(entry.address, target.host, target.port, allowedHosts)
          if (Either.isLeft(checked)) {
            onRefused(checked.left)
            callback(Object.assign(new Error(checked.left), { code: "EWEBHOOKREFUSED" }), "")
            return
          }
        }
        const wanted = entries.filter(
          (e) => options.family === undefined || options.family === 0 || e.family === options.family
        )
        const usable = wanted.length > 0 ? wanted : entries
        const first = usable[0]
        if (options.all === true)
          callback(
            null,
            usable.map((e) => ({ address: e.address, family: e.family }))
          )
        else if (first !== undefined) callback(null, first.address, first.family)
      },
      (error: unknown) => callback(Object.assign(new Error(describeError(error)), { code: "ENOTFOUND" }), "")
    )
  }

/** One POST, as a callback-driven exchange wrapped in an interruptible Effect. */
const post = (
  request: WebhookRequest,
  target: Webhook.WebhookTarget,
  headers: Record<string, string>,
  resolve: Lookup,
  maxAnswerBytes: number
): Effect.Effect<Attempt> =>
  Effect.async<Attempt>((resume) => {
    let settled = false
    let status: number | undefined
    let refusal: string | undefined
    let clientRequest: http.ClientRequest | undefined
    let timer: ReturnType<typeof setTimeout> | undefined

    const finish = (attempt: Attempt) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      clientRequest?.destroy()
      resume(Effect.succeed(attempt))
    }
    const answered = (): Attempt => ({ _tag: "Answered", status: status ?? 0 })

    const base: http.RequestOptions = {
      method: "POST",
      host: target.host,
      port: target.port,
      path: target.path,
      headers,
      agent: false,
      setHost: true
    }
    const options: http.RequestOptions = target.ip
      ? base
      : {
          ...base,
          lookup: checkingLookup(resolve, target, request.allowedHosts, (reason) => (refusal = reason))
        }

    timer = setTimeout(
      () =>
        finish(
          status === undefined
            ? { _tag: "Unreachable", reason: `no answer within ${request.timeoutMs} ms` }
            : answered()
        ),
      request.timeoutMs
    )

    try {
      const req = (target.protocol === "https:" ? https : http).request(options)
      clientRequest = req
      req.on("response", (response) => {
        status = response.statusCode ?? 0
        let read = 0
        response.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read > maxAnswerBytes) finish(answered())
        })
        response.on("end", () => finish(answered()))
        response.on("error", () => finish(answered()))
        response.on("aborted", () => finish(answered()))
      })
      req.on("error", (error) =>
        finish(
          refusal !== undefined
            ? { _tag: "Refused", reason: refusal }
            : status !== undefined
              ? answered()
              : { _tag: "Unreachable", reason: describeError(error) }
        )
      )
      req.end(request.body)
    } catch (error) {
      // Only a request Node cannot build (an invalid header value) throws here: not worth retrying.
      finish({ _tag: "Refused", reason: `the request could not be built (${describeError(error)})` })
    }

    return Effect.sync(() => {
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      clientRequest?.destroy()
    })
  })

const sendWith =
  (resolve: Lookup, maxAnswerBytes: number) =>
  (request: WebhookRequest): Effect.Effect<WebhookOutcome> =>
    Effect.gen(function* () {
      const target = Webhook.checkUrl(request.url, request.allowedHosts)
      if (Either.isLeft(target)) return { _tag: "Refused", reason: target.left } as const
      const headers = headersFor(request)
      if (Either.isLeft(headers)) return { _tag: "Refused", reason: headers.left } as const
      const [elapsed, attempt] = yield* Effect.timed(
        post(request, target.right, headers.right, resolve, maxAnswerBytes)
      )
      const durationMs = Math.round(Duration.toMillis(elapsed))
      switch (attempt._tag) {
        case "Refused":
          return attempt
        case "Answered":
          return { _tag: "Answered", status: attempt.status, durationMs } as const
        case "Unreachable":
          return { _tag: "Unreachable", reason: attempt.reason, durationMs } as const
      }
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.succeed<WebhookOutcome>({
          _tag: "Unreachable",
          reason: `the delivery failed unexpectedly: ${Cause.pretty(cause)}`,
          durationMs: 0
        })
      ),
      Effect.tap((outcome) =>
        Effect.annotateCurrentSpan({
          "webhook.outcome": outcome._tag,
          ...(outcome._tag === "Answered" ? { "webhook.status": outcome.status } : {})
        })
      ),
      Effect.withSpan("NodeWebhookSender.send", { attributes: { "webhook.id": request.id } })
    )

export const make = (options: Options = {}): WebhookSender["Type"] => ({
  send: sendWith(options.lookup ?? systemLookup, options.maxAnswerBytes ?? defaultMaxAnswerBytes)
})

export const layer: Layer.Layer<WebhookSender> = Layer.succeed(WebhookSender, make())
