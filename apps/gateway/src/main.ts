import 'reflect-metadata';
import { startGateway } from './bootstrap';

startGateway();
