/**
 * `Authentication`: how the contract declares bearer authentication (`Authorization: Bearer <API
 * key>`), the failures it may answer (401, 429 with the rate limit, 500) and that an authenticated
 * request acts for the domain's `CurrentAccount`. The OpenAPI document and the typed client read
 * it from here; the server (`@verbatim/api`) implements it.
 */
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Caller } from "@verbatim/domain"
import { Schema } from "effect"
import { InternalError, TooManyRequests, Unauthorized } from "./errors.js"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@verbatim/api/Authentication", {
  failure: Schema.Union(Unauthorized, TooManyRequests, InternalError),
  provides: Caller.CurrentAccount,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key, sent as `Authorization: Bearer <API key>`")
    )
  }
}) {}
