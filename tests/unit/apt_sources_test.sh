#!/usr/bin/env bash
# scripts/apt_sources.sh on sample apt directories: which Debian archive setup.sh takes from the
# machine's sources (one-line and deb822), and which of its entries a machine already has.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/apt_sources.sh
. "$here/../../scripts/apt_sources.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checks=0 failures=0
tab=$'\t'
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# mk CASE FILE: writes stdin to $tmp/CASE/FILE and prints the case's apt directory.
mk() {
  mkdir -p "$(dirname "$tmp/$1/$2")"
  cat >"$tmp/$1/$2"
}
fail() {
  echo "FAIL $1" >&2
  failures=$((failures + 1))
}
same() {  # CASE EXPECTED GOT
  checks=$((checks + 1))
  [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}
# expect_uri CASE URI FILE SIGNED_BY: apt_debian_uri on $tmp/CASE prints them and succeeds.
expect_uri() {
  local got rc=0
  got=$(apt_debian_uri "$tmp/$1") || rc=$?
  same "$1 (status)" 0 "$rc"
  same "$1" "$2$tab$tmp/$1/$3$tab$4" "$got"
}
# expect_no_uri CASE: apt_debian_uri on $tmp/CASE prints nothing and fails.
expect_no_uri() {
  local got rc=0
  got=$(apt_debian_uri "$tmp/$1") || rc=$?
  checks=$((checks + 1))
  [ "$rc" != 0 ] || fail "$1: apt_debian_uri succeeded with no bookworm entry"
  same "$1 (output)" "" "$got"
}
# expect_entry CASE TYPE SUITE FILE: apt_has_entry finds one, in FILE.
expect_entry() {
  local got rc=0
  got=$(apt_has_entry "$tmp/$1" "$2" "$3") || rc=$?
  same "$1: $2 $3 (status)" 0 "$rc"
  same "$1: $2 $3" "$tmp/$1/$4" "$got"
}
# expect_no_entry CASE TYPE SUITE: apt_has_entry finds none.
expect_no_entry() {
  local got rc=0
  got=$(apt_has_entry "$tmp/$1" "$2" "$3") || rc=$?
  checks=$((checks + 1))
  [ "$rc" != 0 ] || fail "$1: apt_has_entry $2 $3 found one, in '$got'"
  same "$1: $2 $3 (output)" "" "$got"
}

# Debian 12's default debian.sources, on another mirror.
mk deb822_default sources.list.d/debian.sources <<'EOF'
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://ftp.de.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://ftp.de.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
expect_uri deb822_default http://ftp.de.debian.org/debian sources.list.d/debian.sources "$keyring"
expect_no_entry deb822_default deb-src bookworm
expect_no_entry deb822_default deb bookworm-backports

# A one-line sources.list with options and comments.
mk one_line sources.list <<'EOF'
# deb http://commented.example/debian bookworm main

#deb-src http://commented.example/debian bookworm main
deb [arch=amd64 signed-by=/x.gpg] http://mirror.example/debian bookworm main contrib  # the mirror
deb http://mirror.example/debian bookworm-updates main contrib
EOF
expect_uri one_line http://mirror.example/debian sources.list /x.gpg
expect_no_entry one_line deb-src bookworm
expect_no_entry one_line deb bookworm-backports

# Spaces inside the option brackets; no Signed-By: Debian's keyring.
mk one_line_spaced sources.list.d/mirror.list <<'EOF'
deb [ arch=amd64,arm64 ] http://spaced.example/debian/ bookworm main
EOF
expect_uri one_line_spaced http://spaced.example/debian/ sources.list.d/mirror.list "$keyring"

# The security entry comes first, in either format.
mk security_first sources.list <<'EOF'
deb http://security.debian.org/debian-security bookworm-security main
deb http://main.example/debian bookworm main
EOF
expect_uri security_first http://main.example/debian sources.list "$keyring"
mk security_first_deb822 sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://security.debian.org/debian-security
Suites: bookworm-security
Components: main

Types: deb
URIs: http://main.example/debian
Suites: bookworm
Components: main
EOF
expect_uri security_first_deb822 http://main.example/debian sources.list.d/debian.sources "$keyring"

# A disc the machine was installed from, in either format, is not an archive.
mk cdrom sources.list <<'EOF'
deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 20240210-11:28]/ bookworm contrib main
EOF
mk cdrom sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 20240210-11:28]/
Suites: bookworm
Components: main

Types: deb
URIs: http://net.example/debian
Suites: bookworm
Components: main
EOF
expect_uri cdrom http://net.example/debian sources.list.d/debian.sources "$keyring"

# A stanza with "Enabled: no" does not count, for the archive nor as an existing entry.
mk disabled sources.list.d/debian.sources <<'EOF'
Types: deb deb-src
URIs: http://off.example/debian
Suites: bookworm bookworm-backports
Components: main
Enabled: no
Signed-By: /off.gpg

# the one in use
types: deb
uris: http://on.example/debian
suites: bookworm
components: main contrib
signed-by: /on.gpg
EOF
expect_uri disabled http://on.example/debian sources.list.d/debian.sources /on.gpg
expect_no_entry disabled deb-src bookworm
expect_no_entry disabled deb bookworm-backports

# A Signed-By holding the key itself cannot go into a one-line entry: Debian's keyring instead.
mk embedded_key sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://key.example/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mDMEZZZZZRYJKwYBBAHaRw8BAQdA
 -----END PGP PUBLIC KEY BLOCK-----
EOF
expect_uri embedded_key http://key.example/debian sources.list.d/debian.sources "$keyring"
mk embedded_key_first_line sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://key.example/debian
Suites: bookworm
Components: main
Signed-By: -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mDMEZZZZZRYJKwYBBAHaRw8BAQdA
 -----END PGP PUBLIC KEY BLOCK-----
EOF
expect_uri embedded_key_first_line http://key.example/debian sources.list.d/debian.sources \
  "$keyring"

# Several URIs in a stanza: the first.
mk several_uris sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://first.example/debian http://second.example/debian
Suites: bookworm
Components: main
EOF
expect_uri several_uris http://first.example/debian sources.list.d/debian.sources "$keyring"

# No bookworm deb entry at all: updates, security, a deb-src and a third-party repository only.
mk no_bookworm sources.list <<'EOF'
deb http://deb.example/debian bookworm-updates main
deb http://security.example/debian-security bookworm-security main
deb-src http://deb.example/debian bookworm main
EOF
mk no_bookworm sources.list.d/docker.list <<'EOF'
deb [signed-by=/docker.gpg] https://download.docker.com/linux/debian bookworm stable
EOF
expect_no_uri no_bookworm
# apt_archive falls back to deb.debian.org and says so.
apt_archive "$tmp/no_bookworm" >"$tmp/no_bookworm.out"
same "no_bookworm: fallback URI" http://deb.debian.org/debian "$apt_archive_uri"
same "no_bookworm: fallback keyring" "$keyring" "$apt_archive_keyring"
checks=$((checks + 1))
grep -q "^setup: no bookworm entry .*using the Debian archive http://deb.debian.org/debian$" \
  "$tmp/no_bookworm.out" ||
  fail "no_bookworm: apt_archive did not say it fell back: $(cat "$tmp/no_bookworm.out")"
# An apt directory with no sources at all.
mkdir -p "$tmp/empty/sources.list.d"
expect_no_uri empty
expect_no_entry empty deb-src bookworm
# apt_archive names the file it took the archive from.
apt_archive "$tmp/deb822_default" >"$tmp/deb822_default.out"
same "deb822_default: apt_archive URI" http://ftp.de.debian.org/debian "$apt_archive_uri"
same "deb822_default: apt_archive keyring" "$keyring" "$apt_archive_keyring"
same "deb822_default: apt_archive says" "setup: using the Debian archive \
http://ftp.de.debian.org/debian (from $tmp/deb822_default/sources.list.d/debian.sources)" \
  "$(cat "$tmp/deb822_default.out")"

# A deb-src line is not the deb entry.
mk src_before_deb sources.list <<'EOF'
deb-src http://src.example/debian bookworm main
deb http://bin.example/debian bookworm main
EOF
expect_uri src_before_deb http://bin.example/debian sources.list "$keyring"
expect_entry src_before_deb deb-src bookworm sources.list

# Existing deb-src for bookworm, deb822 (in a stanza of both types) and one-line.
mk src_deb822 sources.list.d/debian.sources <<'EOF'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
expect_entry src_deb822 deb-src bookworm sources.list.d/debian.sources
expect_no_entry src_deb822 deb bookworm-backports
mk src_one_line sources.list.d/local.list <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
EOF
expect_entry src_one_line deb-src bookworm sources.list.d/local.list
# A deb-src for another suite, or without main (a comment does not count), is not it.
mk src_other sources.list <<'EOF'
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src https://download.docker.com/linux/debian bookworm stable
deb-src http://deb.debian.org/debian bookworm contrib # main is not in use
EOF
expect_no_entry src_other deb-src bookworm

# Existing bookworm-backports, one-line and deb822; a deb-src backports entry does not count.
mk bp_one_line sources.list.d/backports.list <<'EOF'
deb http://deb.debian.org/debian bookworm-backports main contrib
EOF
expect_entry bp_one_line deb bookworm-backports sources.list.d/backports.list
expect_no_entry bp_one_line deb bookworm
mk bp_deb822 sources.list.d/backports.sources <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
EOF
expect_entry bp_deb822 deb bookworm-backports sources.list.d/backports.sources
mk bp_src_only sources.list <<'EOF'
deb-src http://deb.debian.org/debian bookworm-backports main
EOF
expect_no_entry bp_src_only deb bookworm-backports

# sources.list comes before sources.list.d; files apt ignores are ignored; CRLF line ends.
mk order sources.list.d/aaa.list <<'EOF'
deb http://later.example/debian bookworm main
EOF
mk order sources.list <<'EOF'
deb http://first.example/debian bookworm main
EOF
expect_uri order http://first.example/debian sources.list "$keyring"
mk ignored sources.list.d/a.list.disabled <<'EOF'
deb http://disabled.example/debian bookworm main
EOF
mk ignored "sources.list.d/a b.list" <<'EOF'
deb http://space.example/debian bookworm main
EOF
printf 'Types: deb\r\nURIs: http://crlf.example/debian\r\nSuites: bookworm\r\nComponents: main\r\n' |
  mk ignored sources.list.d/crlf.sources
expect_uri ignored http://crlf.example/debian sources.list.d/crlf.sources "$keyring"

if [ $failures -gt 0 ]; then
  echo "apt_sources_test: $failures of $checks checks failed" >&2
  exit 1
fi
[ $checks -gt 0 ] || { echo "apt_sources_test: no checks ran" >&2; exit 1; }
echo "apt_sources_test: all $checks checks passed"
