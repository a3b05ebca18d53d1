/**
 * The node arguments `pnpm start` runs the server with: what its script in package.json ends with
 * (`... && exec node <options> scripts/bundle.mjs --if-changed --run server`: the check, then the
 * bundle in the same process), so that the benches measure the server with the options production
 * uses; the node options alone, to run another bundle with them; and a free local port.
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

/** The node options of `pnpm start` (those before the script it runs). */
export const startOptions = (root: string): ReadonlyArray<string> => {
  const command = startArguments(root)
  const script = command.findIndex((arg) => !arg.startsWith("--"))
  return script === -1 ? command : command.slice(0, script)
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
