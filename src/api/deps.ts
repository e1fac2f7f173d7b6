// What the resource plugins receive: passed explicitly as plugin options, never hung on the app instance. It is
// the services' context: routes pass its parts to the use cases.
import type { ServiceContext } from '../services/context.js';

export type ApiDeps = ServiceContext;
