// s3rver ships no types: the part of its API the S3 driver's tests use (node_modules/s3rver/README.md).
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  class S3rver {
    constructor(options: S3rverOptions);
    /** Creates the configured buckets without a request. */
    configureBuckets(): Promise<void>;
    /** The request handler (a Koa app's callback), for a server of one's own. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }

  export = S3rver;
}
