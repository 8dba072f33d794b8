#!/usr/bin/env bash
# The real documentation of the editor's no-op round trip (test/web/markdown-corpus.test.ts): the
# Markdown files of next@16.4.6's dist/docs (475 files). Only that package's tarball is fetched from
# the npm registry and only its docs folder unpacked — installing it would bring its compiler
# binaries and dependencies, some 320 MB, for 4.6 MB of Markdown. Run by .ci/run; idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=".corpus/next-16.4.6"
[ -d "$dest/docs" ] && exit 0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm pack next@16.4.6 --silent --pack-destination "$tmp" >/dev/null
tar -xzf "$tmp/next-16.4.6.tgz" -C "$tmp" package/dist/docs
mkdir -p "$dest"
mv "$tmp/package/dist/docs" "$dest/docs"
