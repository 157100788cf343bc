// A webhook receiver that verifies every delivery over the raw body bytes (README quick start).
//   npm run build && WEBHOOK_SECRET=whsec_… node dist/libs/client/examples/webhook-receiver.js
// Listens on PORT (4000); register http://localhost:4000/webhooks with the operator API.
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '../src'; // in an application: from '@dc/client'

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('set WEBHOOK_SECRET to the whsec_… secret the webhook registration returned');
  process.exit(1);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      // The bytes as received: parsing and re-serialising the JSON first would change them.
      const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      console.log(`${event.type} ${event.id} livemode=${String(event.livemode)}`, JSON.stringify(event.data));
      res.writeHead(204).end();
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.warn(`refused a delivery: ${err.reason}`);
      res.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 4000), () => console.log(`listening on http://localhost:${process.env.PORT ?? 4000}/webhooks`));
