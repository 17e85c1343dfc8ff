/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dashboard is served by draforge-server from a static directory; every asset URL is relative
// ("./") so the same build works behind a path prefix (kubectl proxy, an ingress sub-path).
export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: process.env.DRAFORGE_DASHBOARD_OUT ?? 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npm run dev` proxies the API to a local draforge-server (default port below).
    proxy: {
      '/api': process.env.DRAFORGE_SERVER ?? 'http://127.0.0.1:8080',
      '/openapi.json': process.env.DRAFORGE_SERVER ?? 'http://127.0.0.1:8080',
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
