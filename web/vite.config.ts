// Builds the web UI into web/dist (served by src/api/web-ui.ts). `npm run build` runs it; `npm ci` runs that.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', chunkSizeWarningLimit: 1500, sourcemap: false,
    // React Query's "use client" markers mean nothing outside server components.
    rollupOptions: { onwarn: (warning, warn) => { if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning); } },
  },
  server: { proxy: { '/api': 'http://localhost:8080', '/realms': 'http://localhost:8080', '/uploads': 'http://localhost:8080', '/web-config.json': 'http://localhost:8080' } },
});
