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

/** Runs the script atomically on the server with the given keys and arguments. */
export const evalScript = async (
  client: Redis,
  script: LuaScript,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<string | number>
): Promise<unknown> => {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args)
  } catch (error) {
    if (!isNoScript(error)) throw error
    return await client.eval(script.source, keys.length, ...keys, ...args)
  }
}
