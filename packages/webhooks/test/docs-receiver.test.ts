/** The receiver of docs/webhooks.md, run as written in its own Node process against the sender. */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import type { WebhookOutcome, WebhookRequest } from "@verbatim/core"
import { Effect, Redacted, Schedule } from "effect"
import { NodeWebhookSender } from "../src/index.js"
import { closedPort } from "./receiver.js"

const docs = readFileSync(fileURLToPath(new URL("../../../docs/webhooks.md", import.meta.url)), "utf8")
const snippet = /## A receiver in Node[\s\S]*?```js\n([\s\S]*?)```/.exec(docs)?.[1] ?? ""
// Under node_modules so that `import "standardwebhooks"` resolves to this package's copy.
const dir = fileURLToPath(new URL("../node_modules/.cache/docs-receiver/", import.meta.url))

const sender = NodeWebhookSender.make()

const runReceiver = (port: number, secret: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      mkdirSync(dir, { recursive: true })
      const file = `${dir}receiver-${port}.mjs`
      writeFileSync(file, snippet)
      const output: Array<string> = []
      const child: ChildProcess = spawn(process.execPath, [file], {
        env: { ...process.env, PORT: String(port), VERBATIM_WEBHOOK_SECRET: secret },
        stdio: ["ignore", "pipe", "pipe"]
      })
      child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")))
      child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")))
      return { child, file, output }
    }),
    ({ child, file }) =>
      Effect.sync(() => {
        child.kill()
        rmSync(file, { force: true })
      })
  )

// Live clock: the receiver runs in its own Node process, the sender over real HTTP.
describe("docs/webhooks.md receiver", () => {
  it("the document has the snippet", () => {
    expect(snippet).toContain('import { Webhook } from "standardwebhooks"')
    expect(snippet).toContain("webhook.verify(body, req.headers)")
  })

  it.scopedLive("verifies a delivery signed with its secret and refuses one signed with another", () =>
    Effect.gen(function* () {
      const secret = `whsec_${randomBytes(32).toString("base64")}`
      const port = yield* closedPort
      const receiver = yield* runReceiver(port, secret)
      const request = (id: string, key: string): WebhookRequest => ({
        url: `http://127.0.0.1:${port}/`,
        id,
        timestampSeconds: Math.floor(Date.now() / 1000),
        body: JSON.stringify({ job_id: "job_1", status: "completed" }),
        secret: Redacted.make(key),
        timeoutMs: 2_000,
        allowedHosts: ["127.0.0.1:*"]
      })
      // Wait for the child to listen: retry while the port refuses connections.
      const first: WebhookOutcome = yield* sender.send(request("msg_good", secret)).pipe(
        Effect.filterOrFail((outcome) => outcome._tag !== "Unreachable"),
        Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 100 })
      )
      expect(first).toMatchObject({ _tag: "Answered", status: 204 })
      const forged = yield* sender.send(request("msg_forged", `whsec_${randomBytes(32).toString("base64")}`))
      expect(forged).toMatchObject({ _tag: "Answered", status: 400 })
      // A last good delivery: the receiver writes its lines to one pipe, in order, so once its line is
      // read, every line the receiver wrote before it has been read too.
      const last = yield* sender.send(request("msg_last", secret))
      expect(last).toMatchObject({ _tag: "Answered", status: 204 })
      yield* Effect.suspend(() =>
        receiver.output.join("").includes("msg_last completed") ? Effect.void : Effect.fail("not yet")
      ).pipe(Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 1_000 }))
      expect(receiver.output.join("")).toContain("msg_good completed")
      expect(receiver.output.join("")).not.toContain("msg_forged")
    })
  )
})
