#!/usr/bin/env bash
# Installs the chunklab autograder. Gradescope runs this once, as root, on its Ubuntu
# image when it builds the autograder; it needs Python 3.10 or later and PyPI.
# CHUNKLAB_VENV names the virtual environment to install into (default: $AUTOGRADER_ROOT/venv,
# where AUTOGRADER_ROOT defaults to /autograder); an existing one is reused.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-/autograder}"
VENV="${CHUNKLAB_VENV:-$ROOT/venv}"
umask 077

if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        # Ubuntu's python3 comes without venv until python3-venv is installed.
        rm -rf "$VENV"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y python3 python3-venv python3-pip
        python3 -m venv "$VENV"
    fi
fi
# The wheel's dependencies only: Hypothesis is not one. The hidden inputs are data in the
# wheel, the ones the zip was built with, whatever the package index serves.
"$VENV/bin/python" -m pip install --disable-pip-version-check --quiet "$HERE"/chunklab-*.whl
"$VENV/bin/python" -m chunklab --version
"$VENV/bin/python" -c 'from chunklab.suites.digest import this_kit; print("suites", this_kit().suites)'

# What a student must not read (the reference solution, the wheel and the installed
# kit with their hidden tests and inputs, the settings) is root's alone, mode 700/600:
# a submission, which runs as a user of its own, reads none of it even on a kernel
# without Landlock.
if [ "$(id -u)" = 0 ]; then
    chown -R root:root "$HERE" "$VENV"
fi
chmod -R go-rwx "$HERE" "$VENV"
