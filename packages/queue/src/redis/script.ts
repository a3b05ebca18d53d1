/**
 * Lua scripts run with `EVALSHA`, falling back to `EVAL` when Redis does not know the script yet
 * (first use, after `SCRIPT FLUSH` or a restart); `EVAL` also loads it for the next `EVALSHA`.
 */
import { createHash } from "node:crypto"
import type { Redis } from "ioredis"

export interface LuaScript {
  readonly source: string
  readonly sha: string
}

export const luaScript = (source: string): LuaScript => ({
  source,
  sha: createHash("sha1").update(source).digest("hex")
})

const isNoScript = (error: unknown): boolean => error instanceof Error && error.message.startsWith("NOSCRIPT")

/**
 * Runs the script atomically on the server with the given keys and arguments, and calls `done` with
 * its reply or its error (no promise of ours in between: the rate limiter's take runs on every
 * request).
 */
export const runScript = (
  client: Redis,
  script: LuaScript,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<string | number>,
  done: (error: Error | null | undefined, reply: unknown) => void
): void => {
  client.evalsha(script.sha, keys.length, ...keys, ...args, (error, reply) => {
    if (error && isNoScript(error)) client.eval(script.source, keys.length, ...keys, ...args, done)
    else done(error, reply)
  })
}

/** Runs the script atomically on the server with the given keys and arguments. */
export const evalScript = (
  client: Redis,
  script: LuaScript,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<string | number>
): Promise<unknown> =>
  new Promise((resolve, reject) =>
    runScript(client, script, keys, args, (error, reply) => (error ? reject(error) : resolve(reply)))
  )
