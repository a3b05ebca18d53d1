/**
 * @verbatim/storage: the blob store of uploaded media, behind core's `BlobStore` port. A local folder
 * whose signed PUT URLs the API server serves (`LocalBlobStore`, with core's `SignedPutReceiver`),
 * the embedded default; and an S3-compatible bucket with presigned PUTs (`S3BlobStore`), for
 * production. One test suite runs on both.
 */

export * as LocalBlobStore from "./local.js"
export * as MediaType from "./media-type.js"
export * as BlobPath from "./path.js"
export * as S3BlobStore from "./s3.js"
export * as PutToken from "./token.js"
