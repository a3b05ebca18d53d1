/**
 * The node arguments `pnpm start` runs the server with: what its script in package.json ends with
 * (`... && exec node <options> apps/server/dist/server.mjs`), so that the benches measure the server
 * with the options production uses; and a free local port for it.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

export const startArguments = (root: string): ReadonlyArray<string> => {
  const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<
    string,
    string
  >
  const line = scripts.start ?? ""
  const command = line.slice(line.lastIndexOf("&& exec ") + "&& exec ".length).split(/\s+/)
  if (command[0] !== "node") throw new Error(`pnpm start should end with "&& exec node ...", got ${line}`)
  return command.slice(1)
}

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export const freeLocalPort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
