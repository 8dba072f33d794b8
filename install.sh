#!/bin/sh
# Installs a built `quire` executable into PREFIX/bin (default /usr/local/bin).
#
#   ./install.sh [--prefix DIR] [SOURCE]
#
# SOURCE is a local file (default: dist/quire next to this script, as `bun run build` leaves it)
# or an http(s) URL to download it from. The copy is checked by running `quire --version` before
# it replaces anything, and put in place with a rename, so a failed install leaves the old one.
# Writing to a system prefix needs the right permissions: run it as a user who has them (or pick
# a prefix you own, e.g. --prefix "$HOME/.local"); this script never calls sudo itself.
set -eu

prefix=/usr/local
source=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$source" ] || { echo "install.sh: only one SOURCE may be given" >&2; exit 2; }; source=$1; shift ;;
  esac
done
if [ -z "$source" ]; then
  source="$(cd "$(dirname "$0")" && pwd)/dist/quire"
fi

bindir="$prefix/bin"
mkdir -p "$bindir"
tmp="$bindir/.quire.install.$$"
trap 'rm -f "$tmp"' EXIT INT TERM

case "$source" in
  http://*|https://*)
    echo "Downloading $source"
    if command -v curl >/dev/null 2>&1; then
      curl -fsSL -o "$tmp" "$source"
    elif command -v wget >/dev/null 2>&1; then
      wget -q -O "$tmp" "$source"
    else
      echo "install.sh: need curl or wget to download $source" >&2; exit 1
    fi
    ;;
  *)
    [ -f "$source" ] || { echo "install.sh: no such file: $source (run 'bun run build' first?)" >&2; exit 1; }
    cp "$source" "$tmp"
    ;;
esac
chmod 0755 "$tmp"

if ! version=$("$tmp" --version 2>&1); then
  echo "install.sh: the file does not run on this machine: $version" >&2; exit 1
fi
case "$version" in
  "quire v"*) ;;
  *) echo "install.sh: not a quire executable (--version said: $version)" >&2; exit 1 ;;
esac

mv -f "$tmp" "$bindir/quire"
trap - EXIT INT TERM
echo "Installed $version to $bindir/quire"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "Note: $bindir is not on your PATH" ;;
esac
