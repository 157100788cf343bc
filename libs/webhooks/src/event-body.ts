/**
 * The delivery body, built by string concatenation so `data` is the stored JSON text verbatim: the
 * API's key order, and no parse or re-serialisation per attempt (docs/adr/0020).
 *
 * `{"id":<json>,"type":<json>,"createdAt":<json>,"livemode":<bool>,"data":<dataJson>}`; `id` is the
 * delivery id, the same on every attempt, on which receivers deduplicate.
 */
export function eventBody(event: { deliveryId: string; type: string; createdAt: string; livemode: boolean; dataJson: string }): string {
  return (
    '{"id":' +
    JSON.stringify(event.deliveryId) +
    ',"type":' +
    JSON.stringify(event.type) +
    ',"createdAt":' +
    JSON.stringify(event.createdAt) +
    ',"livemode":' +
    (event.livemode ? 'true' : 'false') +
    ',"data":' +
    event.dataJson +
    '}'
  );
}
