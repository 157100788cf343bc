// Image HEALTHCHECK: GET /health/ready on the port named by an environment variable (or a default);
// healthy only on 200 within 4 s. Usage: node healthcheck.js <PORT_VARIABLE> <default port>
const [variable, fallback] = process.argv.slice(2);
const port = process.env[variable] || fallback;
require('node:http')
  .get(`http://127.0.0.1:${port}/health/ready`, (res) => process.exit(res.statusCode === 200 ? 0 : 1))
  .on('error', () => process.exit(1))
  .setTimeout(4000, () => process.exit(1));
