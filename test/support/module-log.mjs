// `node --import ./test/support/module-log.mjs …`: appends the URL of every module the process loads through the
// ES module loader (its own, and the CommonJS packages it imports) to the file named by FIRMSCOPE_MODULE_LOG.
import { register } from 'node:module';

register(new URL('./module-log-hooks.mjs', import.meta.url), { data: { file: process.env.FIRMSCOPE_MODULE_LOG } });
