/** The part of s3rver 3.7.1 the tests use (the package ships no types). */
declare module "s3rver" {
  import type { Server } from "node:http"
  import type { AddressInfo } from "node:net"

  interface S3rverOptions {
    readonly address?: string
    readonly port?: number
    readonly silent?: boolean
    readonly directory?: string
    readonly resetOnClose?: boolean
    readonly allowMismatchedSignatures?: boolean
    readonly vhostBuckets?: boolean
    readonly configureBuckets?: ReadonlyArray<{
      readonly name: string
      readonly configs?: ReadonlyArray<string>
    }>
  }

  export default class S3rver {
    constructor(options?: S3rverOptions)
    httpServer?: Server
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
