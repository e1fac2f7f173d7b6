// Response serializers compiled at a route's first response instead of at start. Fastify compiles every route's
// response schemas with fast-json-stringify when the app becomes ready: at this service's size that was most of
// its start-up CPU, and the generated code and the compiler's garbage grew the idle process's heap by tens of MB,
// although most routes are never called by a given process. Each route still gets exactly the serializer Fastify's
// default compiler builds (fields outside the schema never leak); only the moment differs. `compileAll` builds
// every pending one, so a test catches a schema fast-json-stringify refuses as a start-up would have.
import { createRequire } from 'node:module';

type RouteSchema = { schema?: unknown; method?: string; url?: string; httpStatus?: string; contentType?: string };
type Serializer = (data: unknown) => string;
type SerializerCompiler = (route: RouteSchema) => Serializer;
type SerializerBuilder = (externalSchemas: unknown, serializerOptions: unknown) => SerializerCompiler;

/** Fastify's own default serializer builder, resolved from Fastify's location (the copy it would load itself). */
function defaultBuilder(): SerializerBuilder {
  const fromFastify = createRequire(import.meta.resolve('fastify'));
  const selector = fromFastify('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerBuilder };
  return selector.SerializerSelector();
}

export interface LazySerializers {
  /** Fastify's `schemaController.compilersFactory.buildSerializer`. */
  buildSerializer: SerializerBuilder;
  /** Compiles every serializer not compiled yet (tests); throws the first compile error, naming the route. */
  compileAll(): void;
}

export function lazySerializers(): LazySerializers {
  const build = defaultBuilder();
  const pending = new Set<() => Serializer>();
  return {
    buildSerializer(externalSchemas, serializerOptions) {
      const compile = build(externalSchemas, serializerOptions);
      return (route) => {
        let serialize: Serializer | undefined;
        const ready = (): Serializer => {
          if (!serialize) {
            try {
              serialize = compile(route);
            } catch (error) {
              throw new Error(`response schema of ${route.method} ${route.url} (${route.httpStatus}): ${(error as Error).message}`, { cause: error });
            }
            pending.delete(ready);
          }
          return serialize;
        };
        pending.add(ready);
        return (data) => ready()(data);
      };
    },
    compileAll() {
      for (const ready of [...pending]) ready();
    },
  };
}
