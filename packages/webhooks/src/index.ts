/**
 * @verbatim/webhooks: Node adapters for core's webhook ports: `NodeAddressResolver` (the
 * `AddressResolver` on the system resolver) and `NodeWebhookSender` (the `WebhookSender`: a signed
 * Standard Webhooks POST that connects only to addresses checked at that moment).
 */

export type { Lookup, ResolvedAddress } from "./lookup.js"
export * as NodeAddressResolver from "./node-address-resolver.js"
export * as NodeWebhookSender from "./node-webhook-sender.js"
