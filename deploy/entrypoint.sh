#!/bin/sh
# Runs `triage "$@"`. On the first `serve` with an empty KB volume, seed it with the starter KB built into the
# image, so the service answers out of the box; `triage ingest ... --kb "$TRIAGE_KB"` adds your own postmortems.
# Several replicas may share the volume: one seeds it (`mkdir` of a marker is the lock), the others wait, and
# CURRENT, which makes the KB live, is put in place last.
set -eu
seed() {
    mkdir -p "$TRIAGE_KB"
    if mkdir "$TRIAGE_KB/.seeding" 2>/dev/null; then
        # Another replica may have seeded it and let go of the lock since CURRENT was looked for: look again.
        if [ -e "$TRIAGE_KB/CURRENT" ]; then
            rmdir "$TRIAGE_KB/.seeding"
            return 0
        fi
        echo "seeding $TRIAGE_KB with the bundled starter knowledge base" >&2
        src="$TRIAGE_CACHE_DIR/starter-kb-multilingual-e5-small/."
        for item in "$src"/* "$src"/.[!.]*; do
            [ -e "$item" ] && [ "$(basename "$item")" != CURRENT ] && cp -R "$item" "$TRIAGE_KB/"
        done
        cp "$src/CURRENT" "$TRIAGE_KB/.CURRENT.seed" && mv "$TRIAGE_KB/.CURRENT.seed" "$TRIAGE_KB/CURRENT"
        rmdir "$TRIAGE_KB/.seeding"
    else
        echo "another replica is seeding $TRIAGE_KB; waiting for it" >&2
        i=0
        while [ ! -e "$TRIAGE_KB/CURRENT" ] && [ "$i" -lt 300 ]; do sleep 1; i=$((i + 1)); done
    fi
}
if [ "${1:-}" = "serve" ] && [ -n "${TRIAGE_KB:-}" ] && [ ! -e "$TRIAGE_KB/CURRENT" ]; then
    seed
fi
exec triage "$@"
