/**
 * Where the server listens, PORT and HOST, read by the server and by the stdio MCP command, which
 * calls the running server there when the database is the embedded data folder (one process only).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PORT | 3000 | TCP port to listen on |
 * | HOST | 127.0.0.1 | address to listen on; 0.0.0.0 accepts other machines (containers) |
 */
import { createServer } from "node:net"
import { ServeError } from "@effect/platform/HttpServerError"
import { Config, Effect } from "effect"

export interface ServerAddress {
  readonly port: number
  readonly host: string
}

export const ServerAddressConfig: Config.Config<ServerAddress> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(
    Config.validate({ message: "HOST must not be blank", validation: (host) => host.trim() !== "" }),
    Config.withDefault("127.0.0.1")
  )
})

/** The URL a process on this machine reaches the server at (a wildcard address as localhost). */
export const localServerUrl = (address: ServerAddress): string => {
  const host =
    address.host === "0.0.0.0" || address.host === "::"
      ? "localhost"
      : address.host.includes(":")
        ? `[${address.host}]`
        : address.host
  return `http://${host}:${address.port}`
}

/**
 * Listens on the address and closes at once: a PORT in use or a HOST that is not this machine's
 * fails here, as the HTTP server's own listen would (`ServeError`, described by `describeFailure`),
 * before the start spends time on the database. The server listens for real later; a process that
 * takes the port in between is reported then.
 */
export const probeListen = (address: ServerAddress): Effect.Effect<void, ServeError> =>
  Effect.async<void, ServeError>((resume) => {
    const server = createServer()
    server.once("error", (cause) => resume(Effect.fail(new ServeError({ cause }))))
    server.listen({ host: address.host, port: address.port, exclusive: true }, () =>
      server.close(() => resume(Effect.void))
    )
  })
