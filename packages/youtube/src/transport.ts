/**
 * How the adapter talks to YouTube: one injected `fetch` per route (direct, or one per proxy), a
 * process-wide bound on requests in flight, a minimum interval between request starts, a time
 * limit per request, and bounded retries of transient failures (network errors, timeouts, 5xx,
 * 429) with exponential backoff and full jitter. A reCAPTCHA page ends the request at once as an
 * IP block: retrying from the same address only digs deeper. `rotating` runs an operation again
 * on the next proxy when YouTube blocks the current one.
 */

import { createHash } from "node:crypto"
import {
  EgressBudget,
  type EgressRate,
  egressBackoff,
  PlatformBlocked,
  PlatformUnavailable
} from "@verbatim/core"
import { Clock, Context, Duration, Effect, Option, Random, Redacted, Ref, Schema } from "effect"
import type { YouTubeSettings } from "./config.js"

/** The part of `fetch` the adapter uses: it always passes a whole `Request`. */
export type FetchLike = (request: Request) => Promise<Response>

/** The fetch of one route: `null` is the direct route, otherwise a proxy URL. */
export type FetchFor = (proxy: Redacted.Redacted<string> | null) => FetchLike

interface UndiciModule {
  readonly ProxyAgent: new (url: string) => object
  readonly fetch: (url: string, init: object) => Promise<unknown>
}

/** Routes a request through an HTTP(S) proxy with undici's `ProxyAgent` (loaded on first use). */
const proxiedFetch = (proxy: Redacted.Redacted<string>): FetchLike => {
  let loaded: Promise<{ readonly undici: UndiciModule; readonly dispatcher: object }> | undefined
  return async (request) => {
    loaded ??= (import("undici") as Promise<UndiciModule>).then((undici) => ({
      undici,
      dispatcher: new undici.ProxyAgent(Redacted.value(proxy))
    }))
    const { undici, dispatcher } = await loaded
    const body =
      request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer()
    const response = await undici.fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      signal: request.signal,
      dispatcher
    })
    return response as Response
  }
}

/** Node's global `fetch` for the direct route, undici with a `ProxyAgent` for a proxy. */
export const nodeFetchFor: FetchFor = (proxy) =>
  proxy === null ? (request) => globalThis.fetch(request) : proxiedFetch(proxy)

/**
 * The `fetch` the adapter uses, by route. Production keeps the default (node's fetch, undici for
 * proxies); tests provide a replaying one (`@verbatim/youtube/testing`).
 */
export class YouTubeFetch extends Context.Reference<YouTubeFetch>()("@verbatim/youtube/YouTubeFetch", {
  defaultValue: (): FetchFor => nodeFetchFor
}) {
  /** The same fetch on every route. */
  static readonly everywhere =
    (fetch: FetchLike): FetchFor =>
    () =>
      fetch
}

export interface Outgoing {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/** Browser-like headers for every request; English answers, so reasons read the same everywhere. */
export const baseHeaders: Readonly<Record<string, string>> = {
  "accept-language": "en-US,en;q=0.9",
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
}

/**
 * Google's "unusual traffic" page: a reCAPTCHA, meaning this address is blocked. Only an HTML page
 * that is not a YouTube page (no `INNERTUBE_API_KEY`) counts, so a video whose title or description
 * quotes those words is not taken for a block; JSON and caption bodies never count.
 */
export const isCaptchaPage = (body: string): boolean =>
  /^\s*(<!doctype html|<html)/i.test(body.slice(0, 512)) &&
  !body.includes('"INNERTUBE_API_KEY"') &&
  (body.includes('class="g-recaptcha"') ||
    body.includes('id="captcha-form"') ||
    body.includes("unusual traffic from your computer network"))

class Transient extends Schema.TaggedError<Transient>()("Transient", {
  reason: Schema.String,
  rateLimited: Schema.Boolean,
  retryAfterMs: Schema.NullOr(Schema.Number)
}) {}

const maxBackoff = Duration.seconds(30)

const retryAfter = (headers: Headers): number | null => {
  const value = headers.get("retry-after")
  if (value === null) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now())
}

export interface Transport {
  /** A request on the current route with its body read, retried while the failure is transient. */
  readonly send: (request: Outgoing) => Effect.Effect<Reply, PlatformUnavailable | PlatformBlocked>
  /** A request whose body is left unread (audio), retried like `send` until its headers arrive. */
  readonly open: (request: Outgoing) => Effect.Effect<Response, PlatformUnavailable | PlatformBlocked>
  /**
   * Runs `operation`; when YouTube blocks it (IP block, bot check, rate limit), moves on to the next
   * proxy and runs it again, at most once per proxy.
   */
  readonly rotating: <A, E, R>(operation: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Which route requests take now: `direct`, or `proxy <n>` (1-based, the URL is secret). */
  readonly route: Effect.Effect<string>
  /** The proxy requests take now (for yt-dlp's `--proxy`), if any. */
  readonly proxy: Effect.Effect<Redacted.Redacted<string> | null>
}

const rotatingKinds = new Set(["ip_blocked", "bot_check", "rate_limited"])

export const makeTransport = (settings: YouTubeSettings) =>
  Effect.gen(function* () {
    const fetchFor = yield* YouTubeFetch
    const budget = yield* Effect.serviceOption(EgressBudget)
    const routes =
      settings.proxies.length === 0
        ? [{ label: "direct", egress: settings.egressName, proxy: null, fetch: fetchFor(null) }]
        : settings.proxies.map((proxy, i) => ({
            label: `proxy ${i + 1}`,
            // The budget's key names the proxy without its URL (which may hold a password).
            egress: `proxy-${createHash("sha256").update(Redacted.value(proxy)).digest("hex").slice(0, 16)}`,
            proxy,
            fetch: fetchFor(proxy)
          }))
    const current = yield* Ref.make(0)
    const permits = yield* Effect.makeSemaphore(settings.concurrency)
    const nextStart = yield* Ref.make(0)
    const interval = Duration.toMillis(settings.minInterval)
    const timeout = settings.requestTimeout
    const rate: EgressRate = { ratePerSecond: interval > 0 ? 1000 / interval : 1, burst: settings.burst }

    /** In this process alone (no budget given): at least `interval` between two starts. */
    const paceHere =
      interval <= 0
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Ref.modify(nextStart, (next) => {
              const slot = Math.max(now, next)
              return [slot - now, slot + interval] as const
            })
          ).pipe(Effect.flatMap((wait) => (wait > 0 ? Effect.sleep(Duration.millis(wait)) : Effect.void)))

    /** The pace of `egress`: its slot in the shared budget, else this process's own pace. */
    const pace = (egress: string) =>
      interval <= 0
        ? Effect.void
        : Option.match(budget, {
            onNone: () => paceHere,
            onSome: (shared) =>
              Effect.flatMap(shared.reserve(egress, rate), (wait) =>
                Duration.toMillis(wait) > 0 ? Effect.sleep(wait) : Effect.void
              )
          })

    /** The platform pushed back on `egress`: a strike in the budget (see core's `EgressBudget`). */
    const strike = (egress: string, why: string) =>
      Option.match(budget, {
        onNone: () => Effect.void,
        onSome: (shared) =>
          shared.pushBack(egress, rate).pipe(
            Effect.zipRight(shared.strikes(egress)),
            Effect.flatMap((strikes) =>
              Effect.logWarning("youtube: pushed back; this egress slows down").pipe(
                Effect.annotateLogs({ egress, strikes, reason: why })
              )
            )
          )
      })

    const routeNow = Effect.map(Ref.get(current), (i) => routes[i % routes.length] ?? routes[0])

    /** One attempt: a permit, the pacing slot, the request and (when `read`) its body, within the time limit. */
    const attempt = <A>(
      request: Outgoing,
      read: (response: Response) => Promise<A>
    ): Effect.Effect<
      { readonly response: Response; readonly value: A; readonly egress: string },
      Transient
    > =>
      Effect.gen(function* () {
        const route = yield* routeNow
        if (route === undefined) return yield* Effect.die("no route")
        return yield* permits.withPermits(1)(
          pace(route.egress).pipe(
            Effect.zipRight(
              Effect.tryPromise({
                try: async (signal) => {
                  const response = await route.fetch(
                    new Request(request.url, {
                      method: request.method,
                      headers: { ...baseHeaders, ...request.headers },
                      ...(request.body === undefined ? {} : { body: request.body }),
                      signal
                    })
                  )
                  return { response, value: await read(response), egress: route.egress }
                },
                catch: (cause) =>
                  new Transient({
                    reason: `${request.method} ${new URL(request.url).pathname} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
                    rateLimited: false,
                    retryAfterMs: null
                  })
              }).pipe(
                Effect.timeoutFail({
                  duration: timeout,
                  onTimeout: () =>
                    new Transient({
                      reason: `${request.method} ${new URL(request.url).pathname} took longer than ${Duration.format(timeout)}`,
                      rateLimited: false,
                      retryAfterMs: null
                    })
                })
              )
            )
          )
        )
      })

    const judged = <A>(
      request: Outgoing,
      read: (response: Response) => Promise<A>,
      body: (a: A) => string
    ): Effect.Effect<{ readonly response: Response; readonly value: A }, Transient | PlatformBlocked> =>
      Effect.flatMap(
        attempt(request, read),
        ({
          response,
          value,
          egress
        }): Effect.Effect<
          { readonly response: Response; readonly value: A },
          Transient | PlatformBlocked
        > => {
          const status = response.status
          const text = body(value)
          const path = new URL(request.url).pathname
          if (isCaptchaPage(text)) {
            return Effect.zipRight(
              strike(egress, "reCAPTCHA page"),
              Effect.fail(
                new PlatformBlocked({
                  kind: "ip_blocked",
                  reason: `YouTube answered ${path} with its "unusual traffic" reCAPTCHA page: this address is blocked`
                })
              )
            )
          }
          if (status === 429 || status >= 500) {
            const failure = Effect.fail(
              new Transient({
                reason: `${request.method} ${path} answered HTTP ${status}`,
                rateLimited: status === 429,
                retryAfterMs: retryAfter(response.headers)
              })
            )
            return status === 429 ? Effect.zipRight(strike(egress, "HTTP 429"), failure) : failure
          }
          return Effect.succeed({ response, value })
        }
      )

    const retried = <A>(once: Effect.Effect<A, Transient | PlatformBlocked>) => {
      const loop = (n: number): Effect.Effect<A, PlatformUnavailable | PlatformBlocked> =>
        Effect.catchTag(once, "Transient", (failure) => {
          if (n >= settings.retries) {
            return Effect.fail(
              failure.rateLimited
                ? new PlatformBlocked({
                    kind: "rate_limited",
                    reason: `${failure.reason}, still after ${n + 1} attempts`
                  })
                : new PlatformUnavailable({ reason: failure.reason, attempts: n + 1 })
            )
          }
          const ceiling = Math.min(
            Duration.toMillis(maxBackoff),
            Duration.toMillis(settings.retryBase) * 2 ** n
          )
          return Random.nextRange(0, ceiling).pipe(
            Effect.map((jitter) =>
              Math.min(Duration.toMillis(maxBackoff), Math.max(jitter, failure.retryAfterMs ?? 0))
            ),
            Effect.tap((wait) =>
              Effect.logDebug("youtube: transient failure, retrying").pipe(
                Effect.annotateLogs({ reason: failure.reason, attempt: n + 1, wait_ms: Math.round(wait) })
              )
            ),
            Effect.flatMap((wait) => Effect.sleep(Duration.millis(wait))),
            Effect.zipRight(loop(n + 1))
          )
        })
      return loop(0)
    }

    const send = (request: Outgoing) =>
      retried(
        Effect.map(
          judged(
            request,
            (response) => response.text(),
            (text) => text
          ),
          ({ response, value }): Reply => ({
            status: response.status,
            headers: response.headers,
            body: value
          })
        )
      )

    const open = (request: Outgoing) =>
      retried(
        Effect.map(
          judged(
            request,
            async () => undefined,
            () => ""
          ),
          ({ response }) => response
        )
      )

    /** Moves off a collapsed egress when another route has one that is not (see core's `EgressBudget`). */
    const avoidCollapsed = Option.match(budget, {
      onNone: () => Effect.void,
      onSome: (shared) =>
        routes.length < 2
          ? Effect.void
          : Effect.gen(function* () {
              const used = yield* Ref.get(current)
              const strikesOf = (i: number) => shared.strikes(routes[i % routes.length]?.egress ?? "")
              if ((yield* strikesOf(used)) < egressBackoff.collapseAt) return
              for (let step = 1; step < routes.length; step++) {
                if ((yield* strikesOf(used + step)) < egressBackoff.collapseAt) {
                  yield* Ref.set(current, (used + step) % routes.length)
                  return yield* Effect.logWarning("youtube: skipping a proxy whose budget collapsed").pipe(
                    Effect.annotateLogs({ from: routes[used % routes.length]?.label ?? "?" })
                  )
                }
              }
            })
    })

    const rotating = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
      const loop = (tried: number): Effect.Effect<A, E, R> =>
        Effect.flatMap(Ref.get(current), (used) =>
          Effect.catchIf(
            operation.pipe(
              Effect.tapError((error) =>
                // Rate limits and reCAPTCHA pages are struck where they are read (`judged`).
                error instanceof PlatformBlocked && error.kind === "bot_check"
                  ? strike(routes[used % routes.length]?.egress ?? "direct", "bot check")
                  : Effect.void
              )
            ),
            (error): error is E =>
              routes.length > 1 &&
              tried + 1 < routes.length &&
              error instanceof PlatformBlocked &&
              rotatingKinds.has(error.kind),
            (error) =>
              Ref.update(current, (i) => (i === used ? (i + 1) % routes.length : i)).pipe(
                Effect.zipRight(
                  Effect.logWarning("youtube: blocked, moving on to the next proxy").pipe(
                    Effect.annotateLogs({
                      from: routes[used % routes.length]?.label ?? "?",
                      reason: error instanceof PlatformBlocked ? error.reason : ""
                    })
                  )
                ),
                Effect.zipRight(loop(tried + 1))
              )
          )
        )
      return Effect.zipRight(avoidCollapsed, loop(0))
    }

    return {
      send,
      open,
      rotating,
      route: Effect.map(routeNow, (r) => r?.label ?? "direct"),
      proxy: Effect.map(routeNow, (r) => r?.proxy ?? null)
    } satisfies Transport
  })
