#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate the build system from a fresh clone: ./autogen.sh && ./configure
set -e
cd "$(dirname "$0")"
autoreconf --install --force --warnings=all
