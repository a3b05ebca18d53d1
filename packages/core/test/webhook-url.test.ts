import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@verbatim/domain"
import { ConfigProvider, Effect, Exit, FastCheck as fc, Layer } from "effect"
import { AddressResolver, ResolveFailed } from "../src/ports/webhooks.js"
import { checkWebhookUrl, webhookAllowedHostsConfig } from "../src/usecases/webhook-url.js"

/** A resolver made of a fixed table: a real implementation of the port, with no network. */
const tableResolver = (table: Record<string, ReadonlyArray<string>>) => {
  const asked: Array<string> = []
  const layer = Layer.succeed(AddressResolver, {
    resolve: (host) =>
      Effect.suspend(() => {
        asked.push(host)
        const addresses = table[host]
        return addresses === undefined
          ? Effect.fail(new ResolveFailed({ host, reason: "ENOTFOUND" }))
          : Effect.succeed(addresses)
      })
  })
  return { layer, asked }
}

const table = {
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "internal.example.com": ["10.0.0.7"],
  "mixed.example.com": ["93.184.215.14", "192.168.1.20"],
  "mixed6.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::ffff:127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  localhost: ["127.0.0.1", "::1"],
  "empty.example.com": []
}

const run = (url: string, allowed: ReadonlyArray<string> = []) => {
  const resolver = tableResolver(table)
  const exit = Effect.runSyncExit(checkWebhookUrl(url, allowed).pipe(Effect.provide(resolver.layer)))
  return { exit, asked: resolver.asked }
}

/** The refusal as a caller sees it: the ApiError, checked for the field-error shape. */
const refusal = (url: string, allowed: ReadonlyArray<string> = []): string => {
  const { exit } = run(url, allowed)
  if (!Exit.isFailure(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a refusal of ${url}`)
  const error = exit.cause.error
  expect(error).toBeInstanceOf(Errors.ApiError)
  expect(error.code).toBe("invalid_request")
  expect(error.status).toBe(400)
  const issues = (
    error.details as { issues: ReadonlyArray<{ path: ReadonlyArray<string>; message: string }> }
  ).issues
  expect(issues).toHaveLength(1)
  expect(issues[0]?.path).toEqual(["webhook_url"])
  expect(error.message).toBe(`webhook_url: ${issues[0]?.message}`)
  return issues[0]?.message ?? ""
}

const accepted = (url: string, allowed: ReadonlyArray<string> = []) => {
  const { exit, asked } = run(url, allowed)
  expect(exit).toEqual(Exit.succeed(url))
  return asked
}

describe("checkWebhookUrl", () => {
  it("accepts a name whose every address is public, and returns the URL as sent", () => {
    expect(accepted("https://hooks.example.com/verbatim?token=1")).toEqual(["hooks.example.com"])
    expect(accepted("https://HOOKS.example.com./x")).toEqual(["hooks.example.com"])
  })

  it("refuses a name when any address it resolves to is refused", () => {
    expect(refusal("https://internal.example.com/")).toBe(
      "internal.example.com resolves to 10.0.0.7 is a private address; webhooks must reach a public address"
    )
    expect(refusal("https://mixed.example.com/")).toContain("192.168.1.20 is a private address")
    expect(refusal("https://mixed6.example.com/")).toContain("loopback")
    expect(refusal("https://metadata.example.com/")).toContain("cloud metadata")
    expect(refusal("http://localhost:8080/hook")).toContain("loopback")
  })

  it("refuses a name that does not resolve, and says so", () => {
    expect(refusal("https://nowhere.example.com/")).toBe("nowhere.example.com does not resolve (ENOTFOUND)")
    expect(refusal("https://empty.example.com/")).toBe("empty.example.com does not resolve to any address")
  })

  it("classifies a literal address directly, without asking the resolver", () => {
    expect(refusal("http://127.0.0.1:9000/")).toContain("loopback")
    expect(refusal("http://2130706433/")).toContain("loopback")
    expect(refusal("http://[::ffff:10.0.0.1]/")).toContain("private")
    expect(run("http://127.0.0.1/").asked).toEqual([])
    expect(accepted("http://93.184.215.14/hook")).toEqual([])
  })

  it("refuses URLs the URL rule refuses, naming webhook_url", () => {
    expect(refusal("ftp://hooks.example.com/")).toContain("http or https")
    expect(refusal("https://u:p@hooks.example.com/")).toBe("must not contain a user name or password")
    expect(refusal("not a url")).toBe("must be an absolute http or https URL")
  })

  it("the allow-list lets named hosts and addresses through (exact, case-insensitive)", () => {
    expect(accepted("http://127.0.0.1:9000/", ["127.0.0.1:9000"])).toEqual([])
    expect(accepted("http://LOCALHOST:9000/", ["localhost:*"])).toEqual([])
    // An entry without a port allows the default ports only: not Redis or PostgreSQL on that host.
    expect(refusal("http://localhost:6379/x", ["localhost"])).toContain("loopback")
    expect(refusal("http://LOCALHOST:5432/x", ["localhost", "127.0.0.1", "::1"])).toContain("loopback")
    expect(accepted("https://internal.example.com/", ["10.0.0.7"])).toEqual(["internal.example.com"])
    expect(refusal("https://mixed.example.com/", ["mixed.example"])).toContain("private")
    expect(refusal("http://localhost/", ["127.0.0.1"])).toContain("::1 is a loopback address")
    expect(accepted("http://localhost/", ["127.0.0.1", "::1"])).toEqual(["localhost"])
  })

  it("any table of resolved addresses is accepted exactly when every address is public", () => {
    const publicV4 = fc.constantFrom("93.184.215.14", "8.8.4.4", "151.101.1.69", "2a00:1450:4001:80b::200e")
    const refusedV4 = fc.constantFrom(
      "10.1.2.3",
      "172.20.0.1",
      "127.0.0.53",
      "fe80::1",
      "fd12::1",
      "100.64.3.3"
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(publicV4, refusedV4), { minLength: 1, maxLength: 5 }), (addresses) => {
        const resolver = tableResolver({ "receiver.example.org": addresses })
        const exit = Effect.runSyncExit(
          checkWebhookUrl("https://receiver.example.org/", []).pipe(Effect.provide(resolver.layer))
        )
        const allPublic = addresses.every((a) => !/^(10\.|172\.20|127\.|fe80|fd12|100\.64)/.test(a))
        expect(Exit.isSuccess(exit)).toBe(allPublic)
      })
    )
  })

  it.effect("reads the allow-list setting, empty by default", () =>
    Effect.gen(function* () {
      const none = yield* webhookAllowedHostsConfig.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
      )
      expect(none).toEqual([])
      const some = yield* webhookAllowedHostsConfig.pipe(
        Effect.withConfigProvider(
          ConfigProvider.fromMap(
            new Map([["VERBATIM_WEBHOOK_ALLOWED_HOSTS", "Receiver.Internal, 127.0.0.1"]])
          )
        )
      )
      expect(some).toEqual(["receiver.internal", "127.0.0.1"])
      const ports = yield* webhookAllowedHostsConfig.pipe(
        Effect.withConfigProvider(
          ConfigProvider.fromMap(
            new Map([["VERBATIM_WEBHOOK_ALLOWED_HOSTS", "hooks.internal:8443, [::1]:*"]])
          )
        )
      )
      expect(ports).toEqual(["hooks.internal:8443", "[::1]:*"])
      const bad = yield* Effect.flip(
        webhookAllowedHostsConfig.pipe(
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["VERBATIM_WEBHOOK_ALLOWED_HOSTS", "hooks.internal:https"]]))
          )
        )
      )
      expect(String(bad)).toContain("hooks.internal:https")
    })
  )
})
