#!/bin/sh
# Runs `triage "$@"`. On the first `serve` with an empty KB volume, seed it with the starter KB built into the
# image, so the service answers out of the box; `triage ingest ... --kb "$TRIAGE_KB"` adds your own postmortems.
set -eu
if [ "${1:-}" = "serve" ] && [ -n "${TRIAGE_KB:-}" ] && [ ! -e "$TRIAGE_KB/CURRENT" ]; then
    echo "seeding $TRIAGE_KB with the bundled starter knowledge base" >&2
    mkdir -p "$TRIAGE_KB"
    cp -R "$TRIAGE_CACHE_DIR/starter-kb-multilingual-e5-small/." "$TRIAGE_KB/"
fi
exec triage "$@"
