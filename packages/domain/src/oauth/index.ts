/**
 * OAuth rules every entry point shares. `redirectUriMatches`: whether a redirect URI presented in
 * an authorization request is one the client registered.
 *
 * RFC 8252 §7.3: a native app listens on a loopback port the system gives it at the time, so it
 * registers `http://127.0.0.1/callback` and authorizes with `http://127.0.0.1:33418/callback`; the
 * authorization server MUST allow any port there. The port is therefore ignored for `http` URIs
 * on the loopback IP literals `127.0.0.1` and `[::1]`, and on `localhost` too: RFC 8252 §8.3 calls
 * it NOT RECOMMENDED (a name can resolve elsewhere), but assistants register it, the registration
 * already admits it as loopback, and the browser only ever sends the code to this machine.
 * Everything else (scheme, host, path, query, their case) is compared exactly, as text.
 */

/** `http://` + a loopback host + an optional port, then the rest (path, query) or nothing. */
const loopbackAuthority = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?(?=[/?]|$)/

/** The URI without its port when it is an `http` loopback URI (RFC 8252 §7.3); itself otherwise. */
export const withoutLoopbackPort = (uri: string): string =>
  uri.replace(loopbackAuthority, (_whole, host: string) => `http://${host}`)

/** Whether `presented` is the registered URI `registered`: exactly, or with another loopback port. */
export const redirectUriMatches = (registered: string, presented: string): boolean =>
  registered === presented ||
  (loopbackAuthority.test(registered) &&
    loopbackAuthority.test(presented) &&
    withoutLoopbackPort(registered) === withoutLoopbackPort(presented))

/** Whether `presented` matches one of the client's registered redirect URIs. */
export const isRegisteredRedirectUri = (registered: ReadonlyArray<string>, presented: string): boolean =>
  registered.some((uri) => redirectUriMatches(uri, presented))
