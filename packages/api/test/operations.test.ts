/**
 * What operators rely on, over the stub use cases: an unreachable database is 503
 * `service_unavailable` with `Retry-After` (never 500), `/ping` is liveness and `/health` readiness.
 */
import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import { brokenKey, makeHandler, stubHealth, unreachableKey } from "./stubs.js"

const { handler, dispose } = makeHandler()
afterAll(() => dispose())
afterEach(() => {
  stubHealth.databaseDown = false
})

const call = async (path: string, key?: string) => {
  const response = await handler(
    new Request(`http://verbatim.test${path}`, {
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` }
    })
  )
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as unknown }
}

describe("an unreachable database", () => {
  it("answers 503 service_unavailable with Retry-After, not 500", async () => {
    const response = await call("/api/v2/credits", unreachableKey)
    expect(response.status).toBe(503)
    expect(response.json).toEqual({
      error: "service_unavailable",
      message: expect.stringContaining("database"),
      details: { retry_after_seconds: 5 }
    })
    expect(response.headers.get("retry-after")).toBe("5")
  })

  it("any other store failure stays 500 internal_error, without Retry-After", async () => {
    const response = await call("/api/v2/credits", brokenKey)
    expect(response.status).toBe(500)
    expect(response.headers.get("retry-after")).toBeNull()
  })
})

describe("GET /health (readiness)", () => {
  it("answers 200 ready with its time only, without a key; the detail is on /health/details", async () => {
    const response = await call("/api/v2/health")
    expect(response.status).toBe(200)
    // The public answer is the spec's health response: nothing about the dependencies or engines.
    expect(response.json).toEqual({ status: "ready", timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })
    expect(response.headers.get("retry-after")).toBeNull()
    const details = await call("/health/details")
    expect(details.status).toBe(200)
    expect(details.json).toEqual({
      status: "ready",
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      database: { status: "up", latency_ms: expect.any(Number) },
      queue: { status: "up", waiting: 3, active: 1 },
      speech: { status: "off", engine: "none" },
      video_platform: { status: "none" }
    })
  })

  it("answers 503 unavailable with Retry-After while the database is down; /ping stays 200", async () => {
    stubHealth.databaseDown = true
    const response = await call("/api/v2/health")
    expect(response.status).toBe(503)
    expect(response.json).toEqual({ status: "unavailable", timestamp: expect.any(String) })
    expect(response.headers.get("retry-after")).toBe("5")
    const details = await call("/health/details")
    expect(details.status).toBe(503)
    expect(details.json).toMatchObject({
      status: "unavailable",
      database: { status: "down", error: "unreachable or not answering" },
      queue: { status: "up" }
    })
    expect(details.headers.get("retry-after")).toBe("5")
    expect((await call("/api/v2/ping")).status).toBe(200)
  })
})
