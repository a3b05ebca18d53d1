import { randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { AddressResolver, checkWebhookUrl, type WebhookRequest, WebhookSender } from "@verbatim/core"
import { Effect, Exit, Layer, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import { NodeAddressResolver, NodeWebhookSender } from "../src/index.js"
import type { Lookup } from "../src/lookup.js"
import { closedPort, probe, type Received, received, receiver } from "./receiver.js"

const secretText = `whsec_${randomBytes(32).toString("base64")}`
const body = JSON.stringify({ job_id: "job_123", status: "completed", transcript: { text: "héllo wörld" } })

const request = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  id: "msg_2c1b9f",
  timestampSeconds: Math.floor(Date.now() / 1000),
  body,
  secret: Redacted.make(secretText),
  timeoutMs: 5_000,
  allowedHosts: ["127.0.0.1:*"],
  ...overrides
})

const send = (req: WebhookRequest, lookup?: Lookup) =>
  Effect.flatMap(WebhookSender, (sender) => sender.send(req)).pipe(
    Effect.provide(
      lookup === undefined
        ? NodeWebhookSender.layer
        : Layer.succeed(WebhookSender, NodeWebhookSender.make({ lookup }))
    )
  )

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (_: Received, res: import("node:http").ServerResponse) => {
    res.writeHead(code, headers)
    res.end("ok")
  }

/** A lookup from a fixed table; names not in it do not resolve. */
const tableLookup =
  (table: Record<string, ReadonlyArray<string>>): Lookup =>
  async (host) => {
    const addresses = table[host]
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }

// Live clock: the receivers are real HTTP servers on local ports.
describe("NodeWebhookSender: delivery", () => {
  it.scopedLive(
    "POSTs the body with Standard Webhooks headers that the receiver verifies with standardwebhooks",
    () =>
      Effect.gen(function* () {
        const r = yield* receiver(status(200))
        const req = request(`${r.origin}/hooks/verbatim?account=a1`)
        const outcome = yield* send(req)
        expect(outcome).toMatchObject({ _tag: "Answered", status: 200 })
        expect(r.requests).toHaveLength(1)
        const got = r.requests[0]
        if (got === undefined) return
        expect(got.method).toBe("POST")
        expect(got.url).toBe("/hooks/verbatim?account=a1")
        expect(got.body).toBe(body)
        expect(got.headers["content-type"]).toBe("application/json")
        expect(got.headers["user-agent"]).toMatch(/Verbatim/)
        expect(got.headers["webhook-id"]).toBe(req.id)
        expect(got.headers["webhook-timestamp"]).toBe(String(req.timestampSeconds))
        expect(got.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
        // The receiver's side: the official package, the raw body and the headers as received.
        const verified = new Webhook(secretText).verify(got.body, {
          "webhook-id": String(got.headers["webhook-id"]),
          "webhook-timestamp": String(got.headers["webhook-timestamp"]),
          "webhook-signature": String(got.headers["webhook-signature"])
        })
        expect(verified).toEqual(JSON.parse(body))
        // A different secret or a changed body does not verify.
        const headers = {
          "webhook-id": String(got.headers["webhook-id"]),
          "webhook-timestamp": String(got.headers["webhook-timestamp"]),
          "webhook-signature": String(got.headers["webhook-signature"])
        }
        expect(() =>
          new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(got.body, headers)
        ).toThrow()
        expect(() =>
          new Webhook(secretText).verify(got.body.replace("job_123", "job_124"), headers)
        ).toThrow()
      })
  )

  it.scopedLive.each([500, 429, 410, 503, 404, 204])(
    "a receiver answering %i gives Answered with that status",
    (code) =>
      Effect.gen(function* () {
        const r = yield* receiver(status(code))
        const outcome = yield* send(request(`${r.origin}/`))
        expect(outcome).toMatchObject({ _tag: "Answered", status: code })
        if (outcome._tag === "Answered") expect(outcome.durationMs).toBeGreaterThanOrEqual(0)
        expect(r.requests).toHaveLength(1)
      })
  )

  it.scopedLive("a 302 is the answer: its Location is not followed", () =>
    Effect.gen(function* () {
      const target = yield* receiver(status(200))
      const r = yield* receiver(status(302, { location: `${target.origin}/elsewhere` }))
      const outcome = yield* send(request(`${r.origin}/`))
      expect(outcome).toMatchObject({ _tag: "Answered", status: 302 })
      expect(r.requests).toHaveLength(1)
      // Once a probe of the target is answered, any connection the sender made to it is counted.
      yield* probe(target)
      expect(received(target)).toHaveLength(0)
      expect(target.connections()).toBe(1)
    })
  )

  it.scopedLive("a receiver that never answers gives Unreachable after the timeout", () =>
    Effect.gen(function* () {
      const r = yield* receiver(() => {
        // read the request, never answer
      })
      const outcome = yield* send(request(`${r.origin}/`, { timeoutMs: 300 }))
      expect(outcome._tag).toBe("Unreachable")
      if (outcome._tag !== "Unreachable") return
      expect(outcome.reason).toContain("300 ms")
      expect(outcome.durationMs).toBeGreaterThanOrEqual(290)
      expect(r.requests).toHaveLength(1)
    })
  )

  it.scopedLive("an answer whose head arrived counts even if its body never ends", () =>
    Effect.gen(function* () {
      const r = yield* receiver((_, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("partial")
      })
      const outcome = yield* send(request(`${r.origin}/`, { timeoutMs: 300 }))
      expect(outcome).toMatchObject({ _tag: "Answered", status: 200 })
    })
  )

  it.scopedLive("a long answer body is read only up to the cap, then dropped", () =>
    Effect.gen(function* () {
      const r = yield* receiver((_, res) => {
        res.writeHead(500, { "content-type": "text/plain" })
        res.write(Buffer.alloc(NodeWebhookSender.defaultMaxAnswerBytes * 2, 97))
        // ...and never ends: only the cap can finish the read before the timeout
      })
      const outcome = yield* send(request(`${r.origin}/`, { timeoutMs: 20_000 }))
      expect(outcome).toMatchObject({ _tag: "Answered", status: 500 })
      if (outcome._tag === "Answered") expect(outcome.durationMs).toBeLessThan(20_000)
    })
  )

  it.live("a closed port gives Unreachable", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const outcome = yield* send(request(`http://127.0.0.1:${port}/`))
      expect(outcome._tag).toBe("Unreachable")
      if (outcome._tag === "Unreachable") expect(outcome.reason).toContain("ECONNREFUSED")
    })
  )

  it.live("a name that does not resolve gives Unreachable", () =>
    Effect.gen(function* () {
      const outcome = yield* send(request("http://gone.test/"), tableLookup({}))
      expect(outcome._tag).toBe("Unreachable")
      if (outcome._tag === "Unreachable") expect(outcome.reason).toContain("ENOTFOUND")
    })
  )

  it.live("an invalid secret or URL is Refused, not sent", () =>
    Effect.gen(function* () {
      expect(yield* send(request("http://127.0.0.1:9/", { secret: Redacted.make("whsec_") }))).toMatchObject({
        _tag: "Refused"
      })
      expect(yield* send(request("ftp://127.0.0.1/"))).toMatchObject({ _tag: "Refused" })
      expect(yield* send(request("http://user:pw@127.0.0.1/"))).toMatchObject({ _tag: "Refused" })
    })
  )
})

// Live clock: the receivers are real HTTP servers on local ports.
describe("NodeWebhookSender: addresses are checked at delivery", () => {
  it.scopedLive("127.0.0.1 not in allowedHosts is Refused and no connection is made", () =>
    Effect.gen(function* () {
      const r = yield* receiver(status(200))
      for (const host of ["127.0.0.1", "2130706433", "0x7f.1", "127.1"]) {
        const outcome = yield* send(request(`http://${host}:${r.port}/`, { allowedHosts: [] }))
        expect(outcome._tag).toBe("Refused")
        if (outcome._tag === "Refused") expect(outcome.reason).toContain("loopback")
      }
      yield* probe(r)
      expect(r.connections()).toBe(1)
    })
  )

  it.scopedLive(
    "localhost (resolving to 127.0.0.1) is Refused at delivery; allowed by name it is delivered",
    () =>
      Effect.gen(function* () {
        const r = yield* receiver(status(200))
        const refused = yield* send(request(`http://localhost:${r.port}/`, { allowedHosts: [] }))
        expect(refused._tag).toBe("Refused")
        if (refused._tag === "Refused") expect(refused.reason).toContain("localhost resolves to")
        yield* probe(r)
        expect(r.connections()).toBe(1)
        // Allowed by name without its port: the default ports only, so still refused, unconnected.
        const portless = yield* send(request(`http://localhost:${r.port}/`, { allowedHosts: ["LocalHost"] }))
        expect(portless._tag).toBe("Refused")
        yield* probe(r)
        expect(r.connections()).toBe(2)
        const delivered = yield* send(
          request(`http://localhost:${r.port}/`, { allowedHosts: [`LocalHost:${r.port}`] })
        )
        expect(delivered).toMatchObject({ _tag: "Answered", status: 200 })
        expect(received(r)).toHaveLength(1)
      })
  )

  it.scopedLive("a name is connected to the address the check saw (the lookup's answer)", () =>
    Effect.gen(function* () {
      const r = yield* receiver(status(204))
      const lookup = tableLookup({ "receiver.test": ["127.0.0.1"] })
      const outcome = yield* send(
        request(`http://receiver.test:${r.port}/in`, { allowedHosts: [`receiver.test:${r.port}`] }),
        lookup
      )
      expect(outcome).toMatchObject({ _tag: "Answered", status: 204 })
      expect(r.requests[0]?.headers.host).toBe(`receiver.test:${r.port}`)
    })
  )

  it.scopedLive("a name is refused when ANY of its addresses is refused, before connecting to any", () =>
    Effect.gen(function* () {
      const r = yield* receiver(status(200))
      // 127.0.0.1 is allowed by address; 10.255.255.1 is not. Checking only the first would connect.
      const lookup = tableLookup({ "mixed.test": ["127.0.0.1", "10.255.255.1"] })
      const outcome = yield* send(
        request(`http://mixed.test:${r.port}/`, { allowedHosts: ["127.0.0.1:*"] }),
        lookup
      )
      expect(outcome._tag).toBe("Refused")
      if (outcome._tag === "Refused") expect(outcome.reason).toContain("10.255.255.1 is a private address")
      yield* probe(r)
      expect(r.connections()).toBe(1)
    })
  )

  it.scopedLive(
    "DNS rebinding: public when the request was checked, loopback at delivery: Refused, nothing reached",
    () =>
      Effect.gen(function* () {
        const r = yield* receiver(status(200))
        let calls = 0
        const rebinding: Lookup = async () => {
          calls++
          return calls === 1
            ? [{ address: "93.184.215.14", family: 4 }]
            : [{ address: "127.0.0.1", family: 4 }]
        }
        const url = `http://rebind.test:${r.port}/`
        // Request time: core's check through the resolver sees a public address and accepts the URL.
        const checked = yield* Effect.exit(
          checkWebhookUrl(url, []).pipe(
            Effect.provide(Layer.succeed(AddressResolver, NodeAddressResolver.make({ lookup: rebinding })))
          )
        )
        expect(checked).toEqual(Exit.succeed(url))
        // Delivery: the name now points inside; the sender checks the answer it connects with.
        const outcome = yield* send(request(url, { allowedHosts: [] }), rebinding)
        expect(outcome._tag).toBe("Refused")
        expect(calls).toBe(2)
        yield* probe(r)
        expect(r.connections()).toBe(1)
      })
  )

  it.live("an IPv6 loopback or an IPv4-mapped private literal is Refused", () =>
    Effect.gen(function* () {
      for (const url of ["http://[::1]:9/", "http://[::ffff:10.0.0.1]:9/", "http://[fd00:ec2::254]/"]) {
        expect(yield* send(request(url, { allowedHosts: [] }))).toMatchObject({ _tag: "Refused" })
      }
    })
  )
})
