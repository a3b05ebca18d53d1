/**
 * @verbatim/domain: every rule of the Transcript Service API v2 as pure, typed Effect code.
 * Each concept is a namespace: `Pricing.estimate(...)`, `Mode.resolve(...)`, `Reference.parseVideo(...)`.
 */

export * as Api from "./api/index.js"
export * as Asr from "./asr/index.js"
export * as Caller from "./caller.js"
export * as Captions from "./captions/index.js"
export * as Credits from "./credits.js"
export * as Errors from "./error/index.js"
export * as Ids from "./ids.js"
export * as Language from "./language.js"
export * as Mode from "./mode/index.js"
export * as OAuth from "./oauth/index.js"
export * as Plan from "./plan/index.js"
export * as Pricing from "./pricing/index.js"
export * as Reference from "./reference/index.js"
export * as Status from "./status/index.js"
export * as Transcript from "./transcript/index.js"
export * as Translation from "./translation/index.js"
export * as Webhook from "./webhook/index.js"
