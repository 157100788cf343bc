/**
 * The fetch a client was created with (ClientOptions.fetch, or the global fetch), kept beside the
 * client rather than on DcClient: helpers such as `importsOf` send requests outside the API — an
 * upload to a signed URL — through the same transport (a proxy dispatcher, a test double), without
 * the API's headers and retries. Internal: not exported from the package.
 */
export type Fetch = (request: Request) => Promise<Response>;

const transports = new WeakMap<object, Fetch>();

export function rememberFetch(client: object, fetch: Fetch): void {
  transports.set(client, fetch);
}

/** The plain fetch of `client`; the global fetch for a client not made by createClient (a test double). */
export function plainFetchOf(client: object): Fetch {
  return transports.get(client) ?? ((request: Request) => globalThis.fetch(request));
}
