#!/usr/bin/env bash
# `make rehearse`: the paper profile, with its parameter files unchanged, executed offline on CPU
# against a rehearsal mirror — tiny random-weight models under every paper model id, small data sets in each
# data set's Hub layout (`pluralign mirror rehearsal`) — and a local OpenAI-compatible server that answers to
# every LLM endpoint name of the profile (`pluralign serve --served-model-name ...`, reached through
# PLURALIGN_LLM_BASE_URL). The executed pages go to book/_executed/rehearsal, the HTML to
# _build/rehearsal/_build/html; every page says at its top that its numbers are meaningless (the runner sees
# the rehearsal mirror). Nothing here touches book/_executed/paper or the project's cache.
#
# Environment: REHEARSAL_DIR (default _rehearsal), REHEARSAL_ROWS (pairs per split, default 60; MIN_ROWS more where the paper splits by count),
# REHEARSAL_ONLY (notebook names, space-separated: run only those pages), REHEARSAL_REFRESH=1 (re-execute every page),
# REHEARSAL_JOBS (pages executed at once, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=${BIN:-$ROOT/.venv/bin}
DIR=${REHEARSAL_DIR:-$ROOT/_rehearsal}
ROWS=${REHEARSAL_ROWS:-60}
OUT_DIR=book/_executed/rehearsal
MIRROR=$DIR/mirror
mkdir -p "$DIR"
start=$(date +%s)

# 1. the rehearsal mirror (deterministic: rebuilt only when the library or the profile's ids changed)
stamp=$( { cat manifest.yml params/paper/*.yml; "$BIN/python" -c 'import inspect; from pluralign.book import rehearsal, rehearsal_artefacts, rehearsal_datasets, rehearsal_models; print(*(inspect.getsource(m) for m in (rehearsal, rehearsal_artefacts, rehearsal_datasets, rehearsal_models)))'; echo "$ROWS"; } | sha256sum | cut -c1-16)
if [ ! -f "$MIRROR/REHEARSAL.json" ] || [ "$(cat "$DIR/mirror.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$MIRROR"
    HF_HUB_DISABLE_PROGRESS_BARS=1 "$BIN/pluralign" mirror rehearsal "$MIRROR" --profile paper --rows "$ROWS" >"$DIR/mirror.log"
    echo "$stamp" >"$DIR/mirror.stamp"
fi
echo "rehearsal mirror: $MIRROR ($(( $(date +%s) - start )) s)"

# 2. the local server on the tiny Llama-3, under every endpoint name of the paper profile
mapfile -t NAMES < <("$BIN/python" -c 'from pluralign.book.hub_ids import profile_ids
print("\n".join(profile_ids("paper")["endpoints"]))')
PORT=$("$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export PLURALIGN_MIRROR=$MIRROR HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# one OpenMP thread per process: the models are tiny, and the kernel and the server share the cores; on a busy
# machine two threads per tiny product spin-wait (measured: one LoRA/8-bit training run 215 s -> 39 s, one
# attention call 5 ms -> 8 us)
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export PLURALIGN_CACHE=$DIR/cache PLURALIGN_LLM_BASE_URL=http://127.0.0.1:$PORT/v1
HF_HUB_DISABLE_PROGRESS_BARS=1 "$BIN/pluralign" serve --model "$MIRROR/meta-llama/Meta-Llama-3-8B-Instruct" --port "$PORT" \
    --served-model-name "${NAMES[@]}" >"$DIR/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 240); do
    if "$BIN/python" -c "import urllib.request, sys; urllib.request.urlopen('$PLURALIGN_LLM_BASE_URL/models', timeout=2)" 2>/dev/null; then
        break
    fi
    kill -0 "$SERVER" 2>/dev/null || { echo "error: the local server did not start:"; cat "$DIR/server.log"; exit 1; }
    sleep 0.5
done
echo "server: $(grep -m1 '^serving' "$DIR/server.log")"

# 3. every paper-profile page, unchanged parameter files, into a folder of its own: all of them in one build, two
#    pages at a time (REHEARSAL_JOBS; the paper profile's own default is one page at a time, as its pages share one
#    GPU, but the rehearsal's models are tiny and one thread each); where that build stops at a failing page, one
#    page at a time, going on past a failing page so that one run names every failure (the pages that finished are
#    cached and not executed again); then the HTML book of them
mapfile -t PAGES < <("$BIN/python" -c 'from pluralign.book import manifest_plan as b
m = b.manifest(); print("\n".join(dict.fromkeys(r.notebook for r in b.execution_order(b.runs("paper", m=m), m))))')
[ -n "${REHEARSAL_ONLY:-}" ] && PAGES=($REHEARSAL_ONLY)
extra=()
[ "${REHEARSAL_REFRESH:-0}" = 1 ] && extra+=(--refresh)
failed=()
if [ -n "${REHEARSAL_ONLY:-}" ] || ! "$BIN/pluralign" book --profile paper --out-dir "$OUT_DIR" --no-html \
        --jobs "${REHEARSAL_JOBS:-2}" "${extra[@]}"; then
    [ -z "${REHEARSAL_ONLY:-}" ] && echo "the rehearsal build stopped at a failing page; each page on its own:"
    for nb in "${PAGES[@]}"; do
        "$BIN/pluralign" book --profile paper --out-dir "$OUT_DIR" --only "$nb" --no-html "${extra[@]}" 2>&1 \
            | grep -v '^1 notebooks in' || failed+=("$nb")
    done
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "rehearsal FAILED after $(( $(date +%s) - start )) s: ${#failed[@]} of ${#PAGES[@]} pages failed: ${failed[*]}"
    exit 1
fi
if [ -z "${REHEARSAL_ONLY:-}" ]; then
    "$BIN/pluralign" book --profile paper --out-dir "$OUT_DIR" | tail -2
    # 4. every page in headless Chromium: no stderr, traceback, NaN cell or broken link on a paper-profile page; how
    #    the pages read (the page-consistency check, text size, captions) is reported, not failed: random-weight
    #    models leave many sections with nothing to estimate from
    "$BIN/python" -m pluralign.book.sitecheck _build/rehearsal/_build/html
fi
pages=$(ls "$OUT_DIR"/*.ipynb 2>/dev/null | grep -vc partial || true)
echo "rehearsal done in $(( $(date +%s) - start )) s: $pages pages in $OUT_DIR, HTML in _build/rehearsal/_build/html"
