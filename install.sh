#!/bin/sh
# Installs the `quire` executable into PREFIX/bin (default /usr/local/bin).
#
#   ./install.sh [--prefix DIR] [--version vX.Y.Z] [SOURCE]
#
# With no SOURCE it downloads this machine's build (OS and CPU detected) from the release location
# QUIRE_RELEASE_URL: <url>/<vX.Y.Z or latest>/quire-<version>-<os>-<arch>, checks its SHA-256
# against SHA256SUMS in the same folder and refuses any mismatch. --version pins a release.
# SOURCE is a local file (dist/quire, as `bun run build` leaves it) or an http(s) URL of one.
# The copy is checked by running `quire --version` before it replaces anything, and put in place
# with a rename, so a failed install leaves the old one. This script never calls sudo itself.
set -eu

# Filled in by `bun run release` when the release location is known.
default_release_url=

prefix=/usr/local
source=""
version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --version) [ $# -ge 2 ] || { echo "install.sh: --version needs a version (v1.2.3)" >&2; exit 2; }; version=$2; shift 2 ;;
    --version=*) version=${1#--version=}; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$source" ] || { echo "install.sh: only one SOURCE may be given" >&2; exit 2; }; source=$1; shift ;;
  esac
done
if [ -n "$version" ]; then
  # A version names a folder of the release location: nothing else may reach the URL.
  case "$version" in v*) ;; *) version="v$version" ;; esac
  printf '%s\n' "$version" | grep -Eq '^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$' ||
    { echo "install.sh: --version must look like v1.2.3, not $version" >&2; exit 2; }
  [ -z "$source" ] || { echo "install.sh: --version downloads a release; it cannot be given with a SOURCE" >&2; exit 2; }
fi

bindir="$prefix/bin"
mkdir -p "$bindir"
tmp="$bindir/.quire.install.$$"
sums="$bindir/.quire.SHA256SUMS.$$"
trap 'rm -f "$tmp" "$sums"' EXIT INT TERM

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    echo "install.sh: need curl or wget to download $1" >&2; exit 1
  fi
}

sha256() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  fi
}

# The release file's platform name: linux|darwin - x64|x64-baseline|arm64.
platform() {
  os=$(uname -s)
  cpu=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "install.sh: no release for $os; on Windows use install.ps1, elsewhere build from source" >&2; exit 1 ;;
  esac
  case "$cpu" in
    x86_64|amd64) cpu=x64 ;;
    aarch64|arm64) cpu=arm64 ;;
    *) echo "install.sh: no release for the $cpu CPU" >&2; exit 1 ;;
  esac
  # An x64 Mac running this shell under Rosetta is an Apple silicon Mac: take the native build.
  if [ "$os-$cpu" = darwin-x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then cpu=arm64; fi
  # The x64 build needs AVX2 (Haswell, 2013, and later); older CPUs take the baseline build.
  if [ "$os-$cpu" = linux-x64 ] && [ -r /proc/cpuinfo ] && ! grep -qw avx2 /proc/cpuinfo; then cpu=x64-baseline; fi
  if [ "$os-$cpu" = darwin-x64 ] && ! sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -qw AVX2; then
    echo "install.sh: this Mac's CPU lacks AVX2, which the macOS x64 build needs; build from source" >&2; exit 1
  fi
  echo "$os-$cpu"
}

expected_version=""
if [ -z "$source" ]; then
  release_url=${QUIRE_RELEASE_URL:-$default_release_url}
  [ -n "$release_url" ] || { echo "install.sh: set QUIRE_RELEASE_URL to the release location (or give a SOURCE)" >&2; exit 1; }
  release_url=${release_url%/}
  folder=${version:-latest}
  if [ -z "$version" ]; then
    fetch "$release_url/latest/manifest.json" "$sums" ||
      { echo "install.sh: could not read $release_url/latest/manifest.json" >&2; exit 1; }
    # The top-level "version" (the first one), whether the JSON is laid out on lines or on one.
    version=$(tr ',' '\n' < "$sums" | tr '{' '\n' | sed -n 's/^[[:space:]]*"version"[[:space:]]*:[[:space:]]*"\(v[0-9][0-9A-Za-z.-]*\)".*$/\1/p' | head -n 1)
    [ -n "$version" ] || { echo "install.sh: $release_url/latest/manifest.json names no version" >&2; exit 1; }
  fi
  name="quire-${version#v}-$(platform)"
  echo "Downloading $release_url/$folder/$name"
  fetch "$release_url/$folder/$name" "$tmp" || { echo "install.sh: download of $name failed; nothing was changed" >&2; exit 1; }
  fetch "$release_url/$folder/SHA256SUMS" "$sums" || { echo "install.sh: could not download SHA256SUMS; nothing was changed" >&2; exit 1; }
  # `<hash>  <name>` (or `<hash> *<name>`, binary mode) lines, as sha256sum writes them.
  want=$(awk -v n="$name" '($2 == n || $2 == "*" n) && NF == 2 { print $1; exit }' "$sums")
  [ -n "$want" ] || { echo "install.sh: SHA256SUMS does not list $name (a checksum file of another version?); nothing was changed" >&2; exit 1; }
  got=$(sha256 "$tmp")
  if [ "$got" != "$want" ]; then
    echo "install.sh: checksum mismatch for $name: SHA256SUMS says $want, the download is $got; nothing was changed" >&2; exit 1
  fi
  echo "Checksum verified: $got"
  expected_version=$version
else
  case "$source" in
    http://*|https://*)
      echo "Downloading $source"
      fetch "$source" "$tmp"
      ;;
    *)
      [ -f "$source" ] || { echo "install.sh: no such file: $source (run 'bun run build' first?)" >&2; exit 1; }
      cp "$source" "$tmp"
      ;;
  esac
fi
chmod 0755 "$tmp"

if ! said=$("$tmp" --version 2>&1); then
  echo "install.sh: the file does not run on this machine: $said" >&2; exit 1
fi
case "$said" in
  "quire v"*) ;;
  *) echo "install.sh: not a quire executable (--version said: $said)" >&2; exit 1 ;;
esac
if [ -n "$expected_version" ] && [ "$said" != "quire $expected_version" ]; then
  echo "install.sh: the download says it is $said, not quire $expected_version; nothing was changed" >&2; exit 1
fi

mv -f "$tmp" "$bindir/quire"
trap 'rm -f "$sums"' EXIT INT TERM
echo "Installed $said to $bindir/quire"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "Note: $bindir is not on your PATH" ;;
esac
