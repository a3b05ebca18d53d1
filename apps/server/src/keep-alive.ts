/**
 * The idle timeout of client connections when none is given: longer than the upstream keep-alive of
 * the deployment's Caddy (60 s) and of cloud load balancers (60 s), so a proxy never reuses a
 * connection the server is closing (`VERBATIM_KEEP_ALIVE_TIMEOUT_MS`, config.ts).
 */
export const defaultKeepAliveMs = 75_000
