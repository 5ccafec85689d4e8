#!/bin/sh
# termd's installer, in a release's folder beside its archives:
#   curl -fsSLO URL/install.sh && TERMD_RELEASE_URL=URL sh install.sh [--prefix DIR]
# (Downloaded, then run: `curl … | sh` ends with sh's status, so a failed download succeeds.)
# It picks the archive for this OS, CPU and C library from the release's SHA256SUMS, fetches it
# from TERMD_RELEASE_URL (https://, http:// or file://), checks its SHA-256, and puts termd and its
# interminai and cp-console-server links in ~/.local/bin (or DIR). Any failure stops it before
# anything is installed. POSIX sh: runs under dash, bash, busybox ash and macOS's sh.
set -eu

say() { printf '%s\n' "$*" >&2; }
die() { say "termd install: $*"; say "termd install: nothing was installed."; exit 1; }

usage() {
  cat <<'EOF'
usage: install.sh [--prefix DIR]
  --prefix DIR   install termd there (default: ~/.local/bin)
environment:
  TERMD_RELEASE_URL   the folder of the release: its termd-VERSION-TARGET.tar.gz archives and
                      SHA256SUMS (https://, http:// or file://)
EOF
}

prefix="${HOME:-}/.local/bin"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
[ -n "$prefix" ] || die "--prefix is empty (and HOME is unset?)"

url=${TERMD_RELEASE_URL:-}
[ -n "$url" ] || die "set TERMD_RELEASE_URL to the release's folder (where SHA256SUMS and the termd-*.tar.gz archives are)"
url=${url%/}

# This machine, as the release names its targets (src/package/targets.ts).
sys=$(uname -s 2>/dev/null || echo unknown)
cpu=$(uname -m 2>/dev/null || echo unknown)
case "$sys" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os= ;;
esac
case "$cpu" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) arch= ;;
esac
# An x64 shell under Rosetta on Apple silicon: the arm64 build runs natively.
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  arch=arm64
fi
if [ -z "$os" ] || [ -z "$arch" ]; then
  die "termd has no build for this system ($sys on $cpu); it is built for Linux (x86_64, aarch64; glibc or musl) and macOS (x86_64, arm64). Build it from source (README, Install)."
fi
target=$os-$arch
if [ "$os" = linux ]; then
  # glibc answers getconf GNU_LIBC_VERSION; musl (Alpine) does not, and has its loader in /lib.
  if ! getconf GNU_LIBC_VERSION >/dev/null 2>&1 && ls /lib/ld-musl-*.so.1 >/dev/null 2>&1; then
    target=$target-musl
  fi
fi

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t termd-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# fetch URL FILE
fetch() {
  case "$1" in
    file://*) cp "${1#file://}" "$2" 2>/dev/null ;;
    *)
      if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
      elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
      else die "neither curl nor wget is installed, so nothing can be downloaded"
      fi ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else die "no sha256sum, shasum or openssl to check the download with"
  fi
}

fetch "$url/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $url/SHA256SUMS"
# The line whose file name ends in -TARGET.tar.gz (linux-x64 is not linux-x64-musl).
line=$(awk -v want="-$target.tar.gz" '{ n = $2; sub(/^\*/, "", n); if (length(n) > length(want) && substr(n, length(n) - length(want) + 1) == want) { print $1, n; exit } }' "$tmp/SHA256SUMS")
[ -n "$line" ] || die "$url/SHA256SUMS lists no archive for this machine ($target)"
expected=${line%% *}
archive=${line#* }
case "$archive" in
  */*|..*) die "SHA256SUMS names an odd file: $archive" ;;
esac

say "termd install: $target: downloading $url/$archive"
fetch "$url/$archive" "$tmp/$archive" || die "could not download $url/$archive"
actual=$(sha256 "$tmp/$archive")
[ "$actual" = "$expected" ] || die "$archive does not match its SHA256SUMS entry (expected $expected, got $actual): a damaged or altered download"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" 2>/dev/null || die "$archive is damaged: tar could not unpack it"
bin=$(find "$tmp/x" -type f -name termd | head -n 1)
[ -n "$bin" ] || die "$archive holds no termd binary"
version=$("$bin" --version 2>/dev/null) || die "the termd in $archive does not run on this machine ($target)"

mkdir -p "$prefix" || die "cannot make $prefix"
cp "$bin" "$prefix/.termd.$$" && chmod 755 "$prefix/.termd.$$" && mv -f "$prefix/.termd.$$" "$prefix/termd" || { rm -f "$prefix/.termd.$$"; die "cannot write to $prefix"; }
for name in interminai cp-console-server; do
  ln -sf termd "$prefix/$name"
done
say "termd install: installed $version as $prefix/termd (with interminai and cp-console-server links)"
case ":${PATH:-}:" in
  *":$prefix:"*) say "termd install: $prefix is on your PATH: run termd --help" ;;
  *) say "termd install: $prefix is not on your PATH; add it, e.g. to ~/.profile:  export PATH=\"$prefix:\$PATH\"" ;;
esac
