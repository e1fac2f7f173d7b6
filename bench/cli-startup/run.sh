#!/usr/bin/env bash
# Start-up time of the compiled `firmscope` command (bin/firmscope.js → dist/): --version, --help, and a command's
# --help (upload: loads only its own modules). Builds dist/ first; needs hyperfine (Debian package hyperfine).
# Prints hyperfine's table with the date, the load average and the Node version.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run build >/dev/null
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average: $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version); $(nproc) cores"
hyperfine --warmup 3 --runs 20 --style basic --export-markdown /dev/stdout \
  'node bin/firmscope.js --version' \
  'node bin/firmscope.js --help' \
  'node bin/firmscope.js upload --help' \
  'node -e 0'
