#!/usr/bin/env bash
# Build the JupyterLab extension (extension/) into ascendcraft_lab/labextension/ and let the
# environment's JupyterLab load it.
#
#   extension/build.sh            build if any source is newer than the build, else do nothing
#   FORCE=1 extension/build.sh    build anyway
#   PYTHON=/path/to/python ...    the environment to use (default: .venv/bin/python, else python3)
#   ASCENDCRAFT_NO_LINK=1 ...     build only: leave the environment's labextensions alone (a second
#                                 checkout sharing one venv; `ascendcraft lab` and the browser tests
#                                 load this checkout's build through extra_labextensions_path)
#
# Offline-safe: packages come only from the npm registry that npm is configured with (read at
# run time, never written into a file), at the exact versions of yarn.lock; with CI set, yarn
# refuses to change the lock (immutable install). The builder (@jupyter/builder) and the
# JupyterLab metadata it needs (@jupyterlab/core-meta) are pinned devDependencies, so the build
# never falls back to downloading anything from elsewhere.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
OUT="$REPO/ascendcraft_lab/labextension"
NAME="ascendcraft-lab"
start=$(date +%s%N)
elapsed() { local ms=$(( ($(date +%s%N) - start) / 1000000 )); printf "%d.%d s" $((ms / 1000)) $(((ms % 1000) / 100)); }

PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="$(command -v python3)"; fi
fi
BIN="$(cd "$(dirname "$PY")" && pwd)"
PY="$BIN/$(basename "$PY")"                # absolute: the build below runs from extension/
export PATH="$BIN:$PATH"                   # jlpm and jupyter-builder come with JupyterLab
for tool in node jlpm jupyter-builder; do
  command -v "$tool" >/dev/null || { echo "build.sh: error: $tool not found (Node.js >= 20 and JupyterLab 4.6 in $BIN are needed)" >&2; exit 2; }
done

link_into_environment() {
  # What `jupyter labextension develop` does: the environment's JupyterLab finds the build.
  local prefix dest
  if [ "${ASCENDCRAFT_NO_LINK:-0}" = 1 ]; then
    echo "build.sh: ASCENDCRAFT_NO_LINK=1: not linking the build into the environment"
    return
  fi
  prefix="$("$PY" -c 'import sys; print(sys.prefix if sys.prefix != sys.base_prefix else "")')"
  if [ -z "$prefix" ]; then
    echo "build.sh: not a virtual environment: not linking (ascendcraft lab adds the build to JupyterLab's path itself)"
    return
  fi
  dest="$prefix/share/jupyter/labextensions/$NAME"
  mkdir -p "$(dirname "$dest")"
  if [ -d "$dest" ] && [ ! -L "$dest" ]; then
    # a copy from an (editable) wheel install: replace it by the live build
    grep -q "\"name\": \"$NAME\"" "$dest/package.json" 2>/dev/null && rm -rf "$dest"
  fi
  [ "$(readlink "$dest" 2>/dev/null || true)" = "$OUT" ] || ln -sfn "$OUT" "$dest"
}

sources=("$HERE/src" "$HERE/style" "$HERE/schema" "$HERE/package.json" "$HERE/yarn.lock" "$HERE/tsconfig.json" "$HERE/.yarnrc.yml" "$HERE/install.json")
if [ "${FORCE:-0}" != 1 ] && [ -f "$OUT/package.json" ] && [ -f "$OUT/install.json" ] \
   && [ -z "$(find "${sources[@]}" -newer "$OUT/package.json" -print -quit)" ]; then
  link_into_environment
  echo "build.sh: extension up to date ($(elapsed))"
  exit 0
fi

cd "$HERE"
registry="$(npm config get registry 2>/dev/null || true)"
if [ -n "$registry" ] && [ "$registry" != "undefined" ]; then
  export YARN_NPM_REGISTRY_SERVER="${registry%/}"
fi
if [ ! -f node_modules/.yarn-state.yml ] || [ yarn.lock -nt node_modules/.yarn-state.yml ] \
   || [ package.json -nt node_modules/.yarn-state.yml ]; then
  echo "build.sh: installing node packages (yarn.lock, ${YARN_NPM_REGISTRY_SERVER:-yarn default registry})"
  if [ -n "${CI:-}" ]; then jlpm install --immutable; else jlpm install; fi
fi
echo "build.sh: building the extension"
# The steps of `jlpm run build:prod`, without yarn's start-up cost for each; tsc is incremental
# (tsconfig.tsbuildinfo) unless FORCE=1.
[ "${FORCE:-0}" = 1 ] && rm -rf lib tsconfig.tsbuildinfo
node_modules/.bin/tsc
jupyter-builder build .
cp install.json "$OUT/install.json"
touch "$OUT/package.json"
link_into_environment
echo "build.sh: built $OUT ($(elapsed))"
