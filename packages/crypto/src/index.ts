/** @verbatim/crypto: Node implementations of core's `Secrets` port (randomness and key hashing). */
export * as NodeSecrets from "./node-secrets.js"
