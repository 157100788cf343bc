import 'reflect-metadata';
import { startGateway } from '../src/bootstrap';
import { recordExchanges } from './exchange-recorder';
import { PolicyProbeController } from './policy-probe.controller';

/**
 * The gateway as the e2e stack starts it (libs/testing, Stack.startGateway): the production app
 * plus test-only routes, and the recorder of public exchanges the run's contract check reads
 * (docs/adr/0030). Compiled to dist/apps/gateway/testing/main.js; nothing in src imports it.
 */
startGateway({ extraPublicControllers: [PolicyProbeController], configurePublicListener: (fastify) => recordExchanges(fastify) });
