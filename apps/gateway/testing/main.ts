import 'reflect-metadata';
import { startGateway } from '../src/bootstrap';
import { PolicyProbeController } from './policy-probe.controller';

/**
 * The gateway as the e2e stack starts it (libs/testing, Stack.startGateway): the production app
 * plus test-only routes. Compiled to dist/apps/gateway/testing/main.js; nothing in src imports it.
 */
startGateway({ extraPublicControllers: [PolicyProbeController] });
