/**
 * The delivery body, built by string concatenation so `data` is the stored JSON text verbatim: the
 * API's key order, and no parse or re-serialisation per attempt (docs/adr/0020).
 *
 * `{"id":<json>,"eventId":<json>,"type":<json>,"createdAt":<json>,"livemode":<bool>,"data":<dataJson>}`;
 * `id` is the delivery id, the same on every attempt, on which receivers deduplicate; `eventId` the
 * event's (`evt_…`), the same on every delivery of the event to every webhook (docs/adr/0048).
 */
export function eventBody(event: { deliveryId: string; eventId: string; type: string; createdAt: string; livemode: boolean; dataJson: string }): string {
  return (
    '{"id":' +
    JSON.stringify(event.deliveryId) +
    ',"eventId":' +
    JSON.stringify(event.eventId) +
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
