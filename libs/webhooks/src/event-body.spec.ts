import { eventBody } from './event-body';

const EVENT = { deliveryId: 'dlv_01JD', eventId: 'evt_01JE', type: 'payment.created', createdAt: '2026-11-23T10:00:00.000Z', livemode: true, dataJson: '{"b":1,"a":2}' };

describe('eventBody', () => {
  it('is the fixed envelope with the data text spliced in as it is', () => {
    expect(eventBody(EVENT)).toBe('{"id":"dlv_01JD","eventId":"evt_01JE","type":"payment.created","createdAt":"2026-11-23T10:00:00.000Z","livemode":true,"data":{"b":1,"a":2}}');
    expect(eventBody({ ...EVENT, livemode: false })).toContain(',"livemode":false,');
  });

  it('parses back to the same values, keeping the data key order', () => {
    const parsed = JSON.parse(eventBody(EVENT));
    expect(parsed).toEqual({ id: 'dlv_01JD', eventId: 'evt_01JE', type: 'payment.created', createdAt: '2026-11-23T10:00:00.000Z', livemode: true, data: { b: 1, a: 2 } });
    expect(Object.keys(parsed.data)).toEqual(['b', 'a']);
    expect(Object.keys(parsed)).toEqual(['id', 'eventId', 'type', 'createdAt', 'livemode', 'data']);
  });

  it('keeps the data text byte for byte (spacing, number spelling, escapes)', () => {
    const dataJson = '{ "amount": 12.50, "name": "Zo\\u00eb", "list": [1e3, -0] }';
    const body = eventBody({ ...EVENT, dataJson });
    expect(body.endsWith(`"data":${dataJson}}`)).toBe(true);
    expect(JSON.parse(body).data).toEqual({ amount: 12.5, name: 'Zoë', list: [1000, -0] });
  });

  it('escapes quotes, backslashes, control characters and keeps unicode in the envelope strings', () => {
    const nasty = 'a"b\\c\nd\u0001é😀</script>';
    const body = eventBody({ ...EVENT, deliveryId: nasty, eventId: nasty, type: '"},"x":1,"y":"' });
    const parsed = JSON.parse(body);
    expect(parsed.id).toBe(nasty);
    expect(parsed.eventId).toBe(nasty);
    expect(parsed.type).toBe('"},"x":1,"y":"');
    expect(parsed.x).toBeUndefined();
    expect(body).toContain('"id":"a\\"b\\\\c\\nd\\u0001é😀</script>"');
  });
});
